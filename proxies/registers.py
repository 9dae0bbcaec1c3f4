"""proxies' answers to draws.registers: what the registers say about a member in a draw."""

from django.db.models import Count

from draws.registers import NominationInfo, Provider, ProxyOf, RegisterCounts, Registration, Registrations
from proxies.models import DeclineRegistration, ProxyNomination


def live_nomination(draw, member) -> NominationInfo | None:
    nomination = ProxyNomination.objects.live().filter(draw=draw, participant=member).first()
    if nomination is None:
        return None
    return NominationInfo(
        nomination_id=nomination.pk,
        nominee_name=nomination.nominee_name,
        id_last_four=nomination.nominee_id_number[-4:],
    )


def live_decline(draw, member) -> bool:
    return DeclineRegistration.objects.live().filter(draw=draw, member=member).exists()


def proxy_of(draw, member) -> ProxyOf | None:
    """The participant `member` is the live proxy of in `draw` (by card or by ID number)."""
    nomination = (
        ProxyNomination.objects.proxy_of_another(member).filter(draw=draw).select_related("participant").first()
    )
    if nomination is None:
        return None
    return ProxyOf(nomination_id=nomination.pk, participant_card=nomination.participant.card_number)


def proxy_of_sql(draw_param: str, member_alias: str) -> str:
    """proxy_of in SQL (ProxyNomination.objects.proxy_of_another, by card or by ID number)."""
    if not (draw_param.isidentifier() and member_alias.isidentifier()):
        raise ValueError("proxy_of_sql takes a plain parameter name and table alias")
    n, m = ProxyNomination._meta.db_table, member_alias
    # Checked identifiers and the model's table name; the draw is a placeholder.
    return (
        f"EXISTS (SELECT 1 FROM {n} pn WHERE pn.draw_id = %({draw_param})s AND pn.revoked_at IS NULL"  # noqa: S608
        f" AND (pn.nominee_id_number = {m}.id_number OR pn.nominee_member_id = {m}.id)"
        f" AND pn.participant_id <> {m}.id)"
    )


def counts(draw_ids: list[int]) -> dict[int, RegisterCounts]:
    """The live nominations and declines of these draws, two grouped reads."""
    nominations = dict(
        ProxyNomination.objects.live().filter(draw_id__in=draw_ids).values_list("draw").annotate(n=Count("pk"))
    )
    declines = dict(
        DeclineRegistration.objects.live().filter(draw_id__in=draw_ids).values_list("draw").annotate(n=Count("pk"))
    )
    return {
        draw_id: RegisterCounts(nominations=nominations.get(draw_id, 0), declines=declines.get(draw_id, 0))
        for draw_id in {*nominations, *declines}
    }


def _username(user) -> str:
    return user.get_username() if user is not None else ""


def registrations(draw) -> Registrations:
    """Every nomination and decline of the draw, revoked ones too, oldest first (ties by id, so
    two exports list them alike). Only the nominee's name and last four leave this app."""
    related = ("registered_by", "revoked_by")
    nominations = (
        ProxyNomination.objects.filter(draw=draw)
        .select_related("participant", *related)
        .order_by("registered_at", "pk")
    )
    declines = DeclineRegistration.objects.filter(draw=draw).select_related("member", *related)
    return Registrations(
        proxy=[
            Registration(
                member_id=n.participant_id,
                card_number=n.participant.card_number,
                registered_at=n.registered_at,
                registered_by=_username(n.registered_by),
                revoked_at=n.revoked_at,
                revoked_by=_username(n.revoked_by),
                nominee_name=n.nominee_name,
                nominee_id_last4=n.nominee_id_number[-4:],
            )
            for n in nominations
        ],
        decline=[
            Registration(
                member_id=d.member_id,
                card_number=d.member.card_number,
                registered_at=d.registered_at,
                registered_by=_username(d.registered_by),
                revoked_at=d.revoked_at,
                revoked_by=_username(d.revoked_by),
            )
            for d in declines.order_by("registered_at", "pk")
        ],
    )


PROVIDER = Provider(
    live_nomination=live_nomination,
    live_decline=live_decline,
    proxy_of=proxy_of,
    counts=counts,
    registrations=registrations,
    proxy_of_sql=proxy_of_sql,
)
