from core.formats import spreadsheet_safe


def test_a_cell_a_spreadsheet_would_run_as_a_formula_is_shown_as_text():
    assert [spreadsheet_safe(v) for v in ("=1+1", "+27", "-5", "@SUM(A1)", "\tx", "Naledi", 42, "")] == [
        "'=1+1",
        "'+27",
        "'-5",
        "'@SUM(A1)",
        "'\tx",
        "Naledi",
        42,
        "",
    ]
