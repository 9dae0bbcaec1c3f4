"""The audit log's pages: the events as sentences with links, filtered by choice lists, and the
same filtered events as a CSV download."""

import csv
import itertools
from dataclasses import dataclass

from django.contrib.auth.decorators import permission_required
from django.http import StreamingHttpResponse
from django.shortcuts import render
from django.utils import timezone

from core.audit_words import (
    OBJECT_KINDS,
    RELATED_KEYS,
    Named,
    Sentence,
    action_label,
    describe,
    details,
    details_text,
    object_names,
)
from core.filters import audit_events
from core.formats import local_datetime, spreadsheet_safe
from core.models import AuditEvent
from core.paging import page_of

CSV_BATCH = 2000  # events named per round of queries while the download streams


@dataclass(frozen=True)
class EventRow:
    event: AuditEvent
    sentence: Sentence
    details: list[tuple[str, str]]


def _names_for(events: list[AuditEvent], user) -> dict[tuple[str, str], Named]:
    pairs = [(e.object_type, e.object_id) for e in events if e.object_type]
    for event in events:
        data = event.data if isinstance(event.data, dict) else {}
        pairs += [(object_type, str(data[key])) for key, object_type in RELATED_KEYS.items() if data.get(key)]
    return object_names(pairs, user)


@permission_required("core.view_auditevent", raise_exception=True)
def audit(request):
    form, events = audit_events(request.GET)
    page, query = page_of(request, events)
    names = _names_for(list(page), request.user)
    rows = [_row(event, names) for event in page]
    context = {"form": form, "page": page, "query": query, "rows": rows, "csv_query": query}
    return render(request, "core/audit.html", context)


def _row(event: AuditEvent, names) -> EventRow:
    sentence = describe(event, names)
    return EventRow(event, sentence, details(event, skip=sentence.said))


CSV_HEADER = ["When (Johannesburg)", "What happened", "Who", "Action", "About", "Its number", "Details", "IP address"]


@permission_required("core.view_auditevent", raise_exception=True)
def audit_csv(request):
    """Every event the filters select (not only the page shown), newest first, streamed."""
    _, events = audit_events(request.GET)
    user = request.user

    def rows():
        writer = csv.writer(_Echo())
        yield writer.writerow(CSV_HEADER)
        iterator = events.iterator(chunk_size=CSV_BATCH)
        while batch := list(itertools.islice(iterator, CSV_BATCH)):
            names = _names_for(batch, user)
            for event in batch:
                yield writer.writerow([spreadsheet_safe(cell) for cell in _csv_row(event, names)])

    stamp = timezone.localtime().strftime("%Y%m%d-%H%M")
    response = StreamingHttpResponse(rows(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="audit-log-{stamp}.csv"'
    return response


def _csv_row(event: AuditEvent, names) -> list[str]:
    return [
        local_datetime(event.created_at) + timezone.localtime(event.created_at).strftime(":%S"),
        describe(event, names).text,
        event.actor_label,
        action_label(event.action),
        OBJECT_KINDS[event.object_type].label if event.object_type in OBJECT_KINDS else event.object_type,
        event.object_id,
        details_text(event),
        event.ip or "",
    ]


class _Echo:
    """A file-like object csv.writer writes a row into and hands straight back."""

    def write(self, value: str) -> str:
        return value
