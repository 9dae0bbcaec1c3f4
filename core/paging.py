"""One way every list pages (SCREENS.md rule 6: a list shows its count and never silently
stops at N rows). Views call `page_of`; templates include "_pagination.html"."""

from typing import NamedTuple

from django.core.paginator import Page, Paginator
from django.http import QueryDict

from core.swipe import looks_like_swipe, scrub

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
    """The request's query string without `names`: a link that changes one filter keeps the others.
    A card swipe never goes into a link (core.swipe): a key holding one is left out, a value
    holding one becomes its card number (the middleware has sent such an address on already;
    this is the belt and braces)."""
    query = QueryDict(mutable=True)
    for key, values in request.GET.lists():
        if key not in names and not looks_like_swipe(key):
            query.setlist(key, [scrub(value) if looks_like_swipe(value) else value for value in values])
    return query.urlencode()
