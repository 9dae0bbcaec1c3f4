"""The one error table (issue 15): every DomainError raised in the project names a code of
core.errors.ERRORS, every entry of the table is raised somewhere, and an unknown code is refused
where the error is made. Found by reading the source (AST), not by running every refusal."""

import ast
import os
from pathlib import Path

import pytest
from django.conf import settings

from core.errors import ERRORS, DomainError, ErrorCode, _table

API_STATUSES = {400, 403, 404, 409, 422, 429}
# A code= that is not a plain string, where its value comes from: each must be accounted for.
PASSED_THROUGH = {
    ("draws/raps.py", "code"),  # _check_whole's code= keyword, scanned below
    ("members/services.py", "error.code or 'invalid_identity'"),  # members/identity.py's codes, scanned below
    ("prizes/board_slots.py", "refused.code"),  # re-raises another DomainError's code, itself checked
    ("prizes/cash_desk.py", "refusal.code"),  # a Refusal's code=, scanned below
}
# Calls whose code= ends up in a DomainError: (file, called name).
FEEDERS = {
    ("draws/raps.py", "_check_whole"),
    ("members/identity.py", "ValidationError"),
    ("prizes/cash_desk.py", "Refusal"),
}


SKIPPED_FOLDERS = ("tests", "migrations", "node_modules")


def _sources():
    base = Path(settings.BASE_DIR)
    for folder, folders, files in os.walk(base):
        # Pruned, not filtered afterwards: walking .venv alone took seconds.
        folders[:] = sorted(f for f in folders if not f.startswith(".") and f not in SKIPPED_FOLDERS)
        for name in sorted(f for f in files if f.endswith(".py")):
            path = Path(folder, name)
            yield path.relative_to(base).as_posix(), ast.parse(path.read_text(encoding="utf-8"))


def _name(call: ast.Call) -> str | None:
    func = call.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def _code(call: ast.Call) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == "code"), None)


def _strings(node: ast.expr) -> set[str]:
    return {n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)}


class Scan:
    """Every DomainError made in the project: (file, line, code expression or None)."""

    def __init__(self):
        trees = list(_sources())
        self.classes = {"DomainError"}
        # Subclasses whose __init__ takes no code set it in their super().__init__: that call is
        # the raise site's code. The others are checked where they are called, like DomainError.
        fixed = set()
        for _ in range(3):  # a subclass of a subclass
            for _, tree in trees:
                for node in ast.walk(tree):
                    if isinstance(node, ast.ClassDef) and any(
                        isinstance(b, ast.Name) and b.id in self.classes for b in node.bases
                    ):
                        self.classes.add(node.name)
                        init = next(
                            (n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None
                        )
                        args = [a.arg for a in (init.args.args + init.args.kwonlyargs)] if init else ["code"]
                        if "code" not in args:
                            fixed.add(node.name)
        self.made, self.fed = [], set()
        for path, tree in trees:
            for node in ast.walk(tree):
                if isinstance(node, ast.ClassDef) and node.name in fixed:
                    for call in ast.walk(node):
                        if isinstance(call, ast.Call) and _name(call) == "__init__":  # super().__init__(…, code=…)
                            self.made.append((path, call.lineno, _code(call)))
                if not isinstance(node, ast.Call):
                    continue
                name = _name(node)
                if name in self.classes and name not in fixed:
                    self.made.append((path, node.lineno, _code(node)))
                elif (path, name) in FEEDERS and _code(node) is not None:
                    self.fed |= _strings(_code(node))

    def codes(self) -> set[str]:
        return {code for _, _, expr in self.made if expr is not None for code in _strings(expr)} | self.fed


@pytest.fixture(scope="module")
def scan():
    return Scan()


def test_the_table_is_well_formed():
    assert all(isinstance(e, ErrorCode) and key == e.code for key, e in ERRORS.items())
    assert all(e.code.isidentifier() and e.code == e.code.lower() for e in ERRORS.values())
    assert {e.status for e in ERRORS.values()} <= API_STATUSES
    assert all(e.meaning and "\n" not in e.meaning for e in ERRORS.values())


def test_a_code_is_in_the_table_once():
    with pytest.raises(ValueError, match="twice"):
        _table(("no_tickets", 422, "the member has no tickets"), ("no_tickets", 409, "the draw takes no tickets"))


def test_the_scan_finds_the_raise_sites(scan):
    # A scan finding nothing would pass everything below.
    assert len(scan.made) > 200 and {"RapsListRefused", "RuleInvalid", "RuleUnreadable"} <= scan.classes


def test_every_domain_error_names_a_code(scan):
    assert [f"{path}:{line}" for path, line, expr in scan.made if expr is None] == []


def test_every_code_raised_is_in_the_table(scan):
    assert scan.codes() - set(ERRORS) == set()


def test_every_code_of_the_table_is_raised_somewhere(scan):
    assert set(ERRORS) - scan.codes() == set()


def test_a_code_not_written_out_comes_from_a_known_place(scan):
    dynamic = {(path, ast.unparse(expr)) for path, _, expr in scan.made if expr is not None and not _plain(expr)}
    assert dynamic == PASSED_THROUGH


def _plain(expr: ast.expr) -> bool:
    """A string, or a choice between strings ("a" if … else "b")."""
    if isinstance(expr, ast.IfExp):
        return _plain(expr.body) and _plain(expr.orelse)
    return isinstance(expr, ast.Constant) and isinstance(expr.value, str)


def test_a_domain_error_needs_a_code_of_the_table():
    assert DomainError("Choose at least one draw to cancel.", code="nothing_chosen").code == "nothing_chosen"
    with pytest.raises(TypeError):
        DomainError("No code.")  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="no_such_code"):
        DomainError("Refused.", code="no_such_code")


def test_production_keeps_the_clerks_words_for_an_unknown_code(settings, caplog):
    settings.PRODUCTION = True
    error = DomainError("Refused.", code="no_such_code")
    assert (error.message, error.code) == ("Refused.", "no_such_code")
    assert "no_such_code" in caplog.text
