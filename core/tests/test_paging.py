from django.template.loader import render_to_string
from django.test import RequestFactory

from core.paging import page_of

ROWS = list(range(1, 1235))


def page_for(query: str, per_page: int = 50):
    return page_of(RequestFactory().get("/list/?" + query), ROWS, per_page=per_page)


def test_the_page_keeps_the_filters_but_not_the_page_number():
    page, query = page_for("status=drawn&page=2&property=GRC")
    assert list(page) == list(range(51, 101))
    assert query == "status=drawn&property=GRC"


def test_a_garbled_or_too_high_page_number_gives_a_real_page():
    assert page_for("page=abc").page.number == 1
    assert page_for("page=9999").page.number == 25


def test_the_foot_says_which_rows_of_how_many_are_shown():
    page, query = page_for("status=drawn&page=2")
    html = render_to_string("_pagination.html", {"page": page, "query": query, "noun": "draws"})
    assert "Showing 51\u2013100 of 1,234 draws" in html
    assert 'href="?status=drawn&amp;page=1"' in html and 'href="?status=drawn&amp;page=3"' in html
    assert 'aria-current="page"><span class="page-link">2<' in html
    assert "…" in html  # 25 pages: the middle ones are elided, the last stays reachable
    assert 'href="?status=drawn&amp;page=25"' in html


def test_a_single_page_shows_the_count_without_page_links():
    page, query = page_for("", per_page=5000)
    html = render_to_string("_pagination.html", {"page": page, "query": query})
    assert "Showing 1\u20131,234 of 1,234" in html
    assert "page-link" not in html


def test_an_empty_list_says_so():
    page, query = page_of(RequestFactory().get("/"), [])
    assert "None to show" in render_to_string("_pagination.html", {"page": page, "query": query})
