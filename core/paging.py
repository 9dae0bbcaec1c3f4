"""One way every list pages (SCREENS.md rule 6: a list shows its count and never silently
stops at N rows). Views call `page_of`; templates include "_pagination.html".

A list of up to EXACT_COUNT_UP_TO rows pages by number, with its exact count. A longer one (the
audit log at millions of events, the members list at a million) must not count itself nor skip
rows with OFFSET on every view, so it pages by keyset: each link carries the ordering key of the
row it continues from (`?after=` / `?before=`), "Last" reads the order backwards from the end,
and the count is the planner's estimate for a whole table ("about 2,000,000") or a bound for a
filtered one ("more than 10,000")."""

import datetime as dt
import functools
from typing import NamedTuple

from django.core.exceptions import FieldDoesNotExist, ValidationError
from django.core.paginator import Page, Paginator
from django.db import connections
from django.db.models import Q, QuerySet
from django.http import QueryDict
from django.utils import timezone
from django.utils.functional import cached_property

from core.swipe import looks_like_swipe, scrub

PER_PAGE = 50
EXACT_COUNT_UP_TO = 10_000  # rows counted at most: a few ms on an index, whatever the table's size
CURSOR_PARAMS = ("page", "after", "before")
LAST = "last"
BIGINT_MAX = 2**63 - 1


class Paging(NamedTuple):
    page: Page
    query: str  # the request's query string without `page`, for the page links to keep the filters


def page_of(request, queryset, per_page: int = PER_PAGE, *, count_up_to: int | None = None) -> Paging:
    """The requested page of `queryset` (a missing, garbled or too-high page number gives the
    nearest real page, `?page=last` the last one), with the page numbers to offer
    (`page.numbers`, "…" where elided). A queryset longer than `count_up_to` (EXACT_COUNT_UP_TO
    unless said), or a request that carries a cursor, pages by keyset (KeysetPage)."""
    limit = count_up_to or EXACT_COUNT_UP_TO
    query = query_without(request, *CURSOR_PARAMS)
    keys = _keys(queryset)
    if keys:
        counted = _bounded_count(queryset, limit)
        if counted > limit or request.GET.get("after") or request.GET.get("before"):
            return Paging(KeysetPage.of(request, queryset, keys, per_page, counted, query, limit), query)
    paginator = Paginator(queryset, per_page)
    if keys:
        paginator.count = counted  # counted above: no second count
    number = request.GET.get("page")
    page = paginator.get_page(paginator.num_pages if number == LAST else number)
    page.numbers = list(paginator.get_elided_page_range(page.number, on_each_side=2, on_ends=1))
    page.count_words = f"{paginator.count:,}"
    return Paging(page, query)


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


class Key(NamedTuple):
    name: str  # the model field's attname
    field: object
    descending: bool


def _keys(queryset) -> list[Key] | None:
    """The queryset's ordering as plain fields ending in the primary key (a unique, total order
    a cursor can continue from), or None: such a list pages by number only."""
    if not isinstance(queryset, QuerySet) or queryset.query.is_sliced or queryset.query.distinct:
        return None
    order = list(queryset.query.order_by or queryset.model._meta.ordering)
    keys = []
    meta = queryset.model._meta
    for item in order:
        if not isinstance(item, str) or "__" in item or item.lstrip("-") == "?":
            return None
        name = item.lstrip("-")
        try:
            field = meta.pk if name == "pk" else meta.get_field(name)
        except FieldDoesNotExist:
            return None
        if field.null or not field.concrete or field.is_relation:
            return None
        keys.append(Key(field.attname, field, item.startswith("-")))
    if not keys or keys[-1].field is not meta.pk:
        return None
    return keys


def _bounded_count(queryset, limit: int) -> int:
    """The rows, counted up to `limit` + 1 (no further: more is "more than")."""
    return queryset.order_by().values("pk")[: limit + 1].count()


def _estimate(queryset) -> int | None:
    """The whole table's rows as the planner reckons them: the rows per page of the last ANALYZE
    (pg_class) times the pages the table has now, so that growth since is counted; None when
    the table was never analysed."""
    connection = connections[queryset.db]
    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT (CASE WHEN relpages > 0 THEN reltuples / relpages"
            " * (pg_relation_size(oid) / current_setting('block_size')::int) ELSE reltuples END)::bigint"
            " FROM pg_class WHERE oid = %s::regclass",
            [queryset.model._meta.db_table],
        )
        row = cursor.fetchone()
    return row[0] if row and row[0] > 0 else None


def about(number: int) -> str:
    """A large count in two significant figures, in words: 1,987,654 -> "about 2,000,000"."""
    digits = len(str(number))
    rounded = round(number, -(digits - 2)) if digits > 2 else number
    return f"about {rounded:,}"


def encode_cursor(row, keys: list[Key]) -> str:
    parts = []
    for key in keys:
        value = getattr(row, key.name)
        if isinstance(value, dt.datetime):
            value = value.astimezone(dt.UTC).isoformat()
        parts.append(str(value))
    return "_".join(parts)


def decode_cursor(text: str, keys: list[Key]) -> list | None:
    """The key values a link carries, or None when the text is not one (a garbled or edited link)."""
    parts = text.split("_", len(keys) - 1)
    if len(parts) != len(keys) or len(text) > 200:
        return None
    values = []
    for key, part in zip(keys, parts, strict=True):
        try:
            value = key.field.to_python(part)
        except (ValidationError, ValueError, TypeError, OverflowError):
            return None
        if value is None:
            return None
        if isinstance(value, int) and not -BIGINT_MAX <= value <= BIGINT_MAX:
            return None  # the database would refuse it
        if isinstance(value, dt.datetime):
            if timezone.is_naive(value):
                return None
        elif isinstance(value, dt.date | dt.time):
            return None  # only datetimes and numbers are paged on today
        values.append(value)
    return values


def _beyond(keys: list[Key], values: list, *, forward: bool) -> Q:
    """The rows after (`forward`) or before the row whose keys are `values`, in the list's order:
    (k1 beyond v1) or (k1 = v1 and k2 beyond v2) or ... The first key's bound is repeated on its
    own so that PostgreSQL reads an index range instead of filtering from the list's start."""
    condition = Q()
    equal = Q()
    for key, value in zip(keys, values, strict=True):
        goes_down = key.descending == forward
        condition |= equal & Q(**{f"{key.name}__{'lt' if goes_down else 'gt'}": value})
        equal &= Q(**{key.name: value})
    first = keys[0]
    bound = Q(**{f"{first.name}__{'lte' if first.descending == forward else 'gte'}": values[0]})
    return bound & condition


def _reversed(keys: list[Key]) -> list[str]:
    return [key.name if key.descending else f"-{key.name}" for key in keys]


class KeysetPage:
    """One page of a long list, continued from a row's keys. Offers First, Previous, Next and
    Last (no page numbers: the position of a deep page is not counted), and says how many rows
    the list holds in words (`count_words`)."""

    keyset = True

    def __init__(
        self, rows, *, keys, per_page, total, exact, limit, position, has_previous, has_next, query, notice=""
    ):
        self.object_list = rows
        self.keys = keys
        self.per_page = per_page
        self.total = total
        self.exact = exact
        self.limit = limit  # rows counted at most
        self.position = position  # rows before this page's first, or None when more than counted
        self.has_previous = has_previous
        self.has_next = has_next
        self.query = query
        self.notice = notice  # why the page shown is not the one asked for, in words

    # -- building --------------------------------------------------------------------------------

    @classmethod
    def of(cls, request, queryset, keys, per_page, counted, query, limit) -> "KeysetPage":
        exact = counted <= limit
        total = counted
        if not exact and not queryset.query.where:
            # The whole table: the planner's estimate says "about how many" at no cost.
            total = max(_estimate(queryset) or 0, counted)
        build = functools.partial(cls, keys=keys, per_page=per_page, total=total, exact=exact, limit=limit, query=query)
        position_of = functools.partial(cls._position, queryset, keys, limit=limit)
        after, before, number = request.GET.get("after"), request.GET.get("before"), request.GET.get("page")
        notice = ""
        if after or before:
            values = decode_cursor(after or before, keys)
            if values is None:
                notice = "That page link was damaged, so the list starts again from the first page."
            elif after:
                rows = list(queryset.filter(_beyond(keys, values, forward=True))[: per_page + 1])
                if rows:
                    position = position_of(rows[0])
                    return build(
                        rows[:per_page], position=position, has_previous=position != 0, has_next=len(rows) > per_page
                    )
                return cls._last(queryset, build, keys, per_page, exact, total)  # past the end: the last page
            else:
                rows = list(
                    queryset.filter(_beyond(keys, values, forward=False)).order_by(*_reversed(keys))[: per_page + 1]
                )
                if rows:
                    more = len(rows) > per_page
                    rows = rows[:per_page][::-1]
                    return build(
                        rows,
                        position=position_of(rows[0]) if more else 0,
                        has_previous=more,
                        has_next=True,
                    )
                # before the start: the first page
        elif number == LAST:
            return cls._last(queryset, build, keys, per_page, exact, total)
        elif number:
            page = _page_number(number)
            if page and (page - 1) * per_page < limit:
                rows = list(queryset[(page - 1) * per_page : page * per_page + 1])
                if rows:
                    return build(
                        rows[:per_page],
                        position=(page - 1) * per_page,
                        has_previous=page > 1,
                        has_next=len(rows) > per_page,
                    )
                return cls._last(queryset, build, keys, per_page, exact, total)
            if page:
                notice = (
                    f"Page {page:,} is too far in to open by its number: the list starts again from the first "
                    "page. Use Last, or narrow it with the filters."
                )
        rows = list(queryset[: per_page + 1])
        return build(rows[:per_page], position=0, has_previous=False, has_next=len(rows) > per_page, notice=notice)

    @staticmethod
    def _last(queryset, build, keys, per_page, exact, total) -> "KeysetPage":
        rows = list(queryset.order_by(*_reversed(keys))[: per_page + 1])
        more = len(rows) > per_page
        rows = rows[:per_page][::-1]
        position = (total - len(rows)) if exact else None
        return build(rows, position=position if more else 0, has_previous=more, has_next=False)

    @staticmethod
    def _position(queryset, keys, first_row, *, limit: int) -> int | None:
        """How many rows come before `first_row`, when no more than counted exactly."""
        values = [getattr(first_row, key.name) for key in keys]
        before = _bounded_count(queryset.filter(_beyond(keys, values, forward=False)), limit)
        return before if before <= limit else None

    # -- reading ---------------------------------------------------------------------------------

    def __iter__(self):
        return iter(self.object_list)

    def __len__(self):
        return len(self.object_list)

    def __getitem__(self, index):
        return self.object_list[index]

    @property
    def paginator(self):
        return self  # templates and tests read page.paginator.count as with Django's pages

    @property
    def count(self) -> int:
        return self.total

    @cached_property
    def count_words(self) -> str:
        if self.exact:
            return f"{self.total:,}"
        if self.total > self.limit + 1:
            return about(self.total)
        return f"more than {self.limit:,}"

    def start_index(self) -> int | None:
        return None if self.position is None or not self.object_list else self.position + 1

    def end_index(self) -> int | None:
        return None if self.position is None else self.position + len(self.object_list)

    def _link(self, **params) -> str:
        query = QueryDict(self.query, mutable=True)
        for name, value in params.items():
            query[name] = value
        return query.urlencode()

    @property
    def first_query(self) -> str:
        return self.query

    @property
    def previous_query(self) -> str:
        return self._link(before=encode_cursor(self.object_list[0], self.keys))

    @property
    def next_query(self) -> str:
        return self._link(after=encode_cursor(self.object_list[-1], self.keys))

    @property
    def last_query(self) -> str:
        return self._link(page=LAST)


def _page_number(text: str) -> int | None:
    return int(text) if text.isascii() and text.isdecimal() and 0 < len(text) < 10 and int(text) > 0 else None
