"""draws' part of the member's history (members.history): activations and wins."""

from django.urls import reverse

from core.formats import local_datetime
from draws.models import WINNING_OUTCOMES, Activation, DrawPick
from members.history import HistoryEntry, Source, register


def _activations(member):
    return Activation.objects.filter(member=member)


def _activation_entries(member, limit: int, user) -> list[HistoryEntry]:
    rows = _activations(member).select_related("draw").order_by("-activated_at", "-pk")[:limit]
    may_open = user is not None and user.has_perm("draws.view_activation")
    return [
        HistoryEntry(
            a.activated_at,
            "Activation",
            f"{a.tickets} ticket{'s' if a.tickets != 1 else ''} for {a.draw.name} (serials {a.serials()}, "
            f"receipt {a.receipt_number}, {a.get_channel_display()})",
            reverse("draws:receipt", args=[a.pk]) if may_open else "",
        )
        for a in rows
    ]


def _wins(member):
    return DrawPick.objects.filter(member=member, outcome__in=WINNING_OUTCOMES)


def _win_entries(member, limit: int, user) -> list[HistoryEntry]:
    # A pick's outcome is recorded after the pick: the win dates from then.
    rows = _wins(member).select_related("draw").order_by("-outcome_at", "-pk")[:limit]
    may_open = user is not None and user.has_perm("draws.view_draw")
    return [
        HistoryEntry(
            pick.outcome_at or pick.picked_at,
            "Win",
            f"{pick.get_outcome_display()} in {pick.draw.name} (serial {pick.serial})"
            + (f", represented by {pick.nominee_name}" if pick.nominee_name else ""),
            reverse("draws:detail", args=[pick.draw_id]) if may_open else "",
            (f"Picked {local_datetime(pick.picked_at)}",),
        )
        for pick in rows
    ]


def register_sources() -> None:
    register(
        "draws.activations",
        Source(count=lambda m: _activations(m).count(), newest=_activation_entries, perm="draws.view_activation"),
    )
    register("draws.wins", Source(count=lambda m: _wins(m).count(), newest=_win_entries, perm="draws.view_draw"))
