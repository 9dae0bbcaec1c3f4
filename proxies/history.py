"""proxies' part of the member's history (members.history): nominations and declines, revoked or not."""

from django.urls import reverse

from core.formats import local_datetime
from members.history import HistoryEntry, Source, register
from proxies.models import DeclineRegistration, ProxyNomination


def _revoked(row, word: str) -> tuple[str, ...]:
    if row.is_live:
        return ()
    return (f"{word} {local_datetime(row.revoked_at)}: {row.revoke_reason}",)


def _nominations(member):
    return ProxyNomination.objects.filter(participant=member)


def _nomination_entries(member, limit: int, user) -> list[HistoryEntry]:
    rows = _nominations(member).select_related("draw").order_by("-registered_at", "-pk")[:limit]
    may_open = user is not None and user.has_perm("proxies.add_proxynomination")
    return [
        HistoryEntry(
            n.registered_at,
            "Proxy",
            f"{n.nominee_name} (ID …{n.nominee_id_number[-4:]}) nominated as proxy for {n.draw.name}"
            + ("" if n.is_live else " — revoked"),
            reverse("proxies:nomination", args=[n.pk]) if may_open else "",
            _revoked(n, "Revoked"),
        )
        for n in rows
    ]


def _declines(member):
    return DeclineRegistration.objects.filter(member=member)


def _decline_entries(member, limit: int, user) -> list[HistoryEntry]:
    rows = _declines(member).select_related("draw").order_by("-registered_at", "-pk")[:limit]
    return [
        HistoryEntry(
            d.registered_at,
            "Decline",
            f"Declines to be present at {d.draw.name}" + ("" if d.is_live else " — withdrawn"),
            lines=_revoked(d, "Withdrawn"),
        )
        for d in rows
    ]


def register_sources() -> None:
    nominations = Source(
        count=lambda m: _nominations(m).count(), newest=_nomination_entries, perm="proxies.view_proxynomination"
    )
    declines = Source(
        count=lambda m: _declines(m).count(), newest=_decline_entries, perm="proxies.view_declineregistration"
    )
    register("proxies.nominations", nominations)
    register("proxies.declines", declines)
