"""One way every list pages (SCREENS.md rule 6: a list shows its count and never silently
stops at N rows). Views call `page_of`; templates include "_pagination.html"."""

from typing import NamedTuple

from django.core.paginator import Page, Paginator

PER_PAGE = 50


class Paging(NamedTuple):
    page: Page
    query: str  # the request's query string without `page`, for the page links to keep the filters


def page_of(request, queryset, per_page: int = PER_PAGE) -> Paging:
    """The requested page of `queryset` (a missing, garbled or too-high page number gives the
    nearest real page), with the page numbers to offer (`page.numbers`, "…" where elided)."""
    paginator = Paginator(queryset, per_page)
    page = paginator.get_page(request.GET.get("page"))
    page.numbers = list(paginator.get_elided_page_range(page.number, on_each_side=2, on_ends=1))
    return Paging(page, query_without(request, "page"))


def query_without(request, *names: str) -> str:
    """The request's query string without `names`: a link that changes one filter keeps the others."""
    query = request.GET.copy()
    for name in names:
        query.pop(name, None)
    return query.urlencode()
