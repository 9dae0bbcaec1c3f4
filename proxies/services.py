"""State changes of proxy nominations and the decline-to-be-present register. Each is checked
against the clock and the rules of the seeds, written in a transaction under the draw rows'
lock (the lock activation takes, so a nominee cannot activate while being nominated) and
audited. `*_refusal` functions give the same answer to the pages before anything is typed."""

import datetime as dt
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from core.audit import Actor, audit_log
from core.errors import DomainError
from core.formats import local_datetime
from draws.allocation import eligibility_span
from draws.models import Activation, Draw
from members.eligibility import person_refusals
from members.identity import identify_document
from members.models import Member
from members.staff import check_staff_property
from promotions.models import DrawMethod
from proxies.models import DeclineRegistration, ProxyNomination


@dataclass(frozen=True)
class Nominee:
    """Who stands in: typed in at the desk, or found by the lookup when they are a member."""

    name: str
    id_type: str
    id_number: str
    phone: str = ""
    member: Member | None = None
    # Needed only for a passport or licence of someone without a card: an SA ID carries it, a
    # member's record has it.
    date_of_birth: dt.date | None = None


def _window_refusal(draw: Draw, opens: dt.datetime, closes: dt.datetime, what: str, now: dt.datetime) -> str | None:
    state = draw.state(now)
    if state.is_cancelled:
        return f"{draw.name} is cancelled."
    if state.has_started:  # the draw itself waits for the registers to close
        return f"{draw.name} has started: {what.lower()} are closed."
    if now < opens:
        return f"{what} for {draw.name} open at {local_datetime(opens)}."
    if now >= closes:
        return f"{what} for {draw.name} closed at {local_datetime(closes)}."
    return None


def _participant_refusal(draw: Draw, member: Member, now: dt.datetime) -> str | None:
    """The participant must be eligible now and, in a ticket draw, hold tickets for it."""
    refusals = person_refusals(id_number=member.id_number, date_of_birth=member.date_of_birth, at=now)
    if refusals:
        return f"{member.full_name} may not take part: " + " ".join(refusals)
    if draw.method != DrawMethod.RAPS and not Activation.objects.filter(draw=draw, member=member).exists():
        return f"{member.full_name} has not activated tickets for {draw.name}: only a participant can register."
    return None


def proxy_refusal(*, draw: Draw, participant: Member, now: dt.datetime) -> str | None:
    """Why `participant` cannot nominate a proxy for `draw` now, or None (the nominee is checked
    when named). Rules: the series takes proxies; from the opening time until 15 minutes before
    the draw, or until it starts, as each seed says; one live nomination per participant."""
    if not draw.series.proxies_allowed:
        return (
            f"{draw.series.promotion.name} has no proxies for {draw.name}: "
            "a participant may register a decline instead."
        )
    refusal = _window_refusal(draw, draw.proxies_open_at, draw.proxies_close_at, "Proxy nominations", now)
    if refusal:
        return refusal
    existing = ProxyNomination.objects.live().filter(draw=draw, participant=participant).first()
    if existing:
        return (
            f"{participant.full_name} already nominated {existing.nominee_name} for {draw.name}: "
            "revoke that nomination first."
        )
    return _participant_refusal(draw, participant, now)


def _nominee_refusal(draw: Draw, participant: Member, nominee: Nominee, now: dt.datetime) -> str | None:
    if nominee.id_number == participant.id_number:
        return "A participant cannot be their own proxy."
    # The promotions' own rule for anyone at a draw: 18 on the draw's day, and no exclusion in
    # force at any moment from now until the draw (the one eligibility rule, by ID number).
    refusals = person_refusals(
        id_number=nominee.id_number, date_of_birth=nominee.date_of_birth, **eligibility_span(draw, now)
    )
    if refusals:
        return f"{nominee.name} may not be a proxy at {draw.name}: " + " ".join(refusals)
    represented = (
        ProxyNomination.objects.standing_in(id_number=nominee.id_number, member=nominee.member)
        .filter(draw=draw)
        .select_related("participant")
        .first()
    )
    if represented:
        return (
            f"{represented.nominee_name} already represents {represented.participant.full_name} "
            f"(card ending {represented.participant.card_number[-4:]}) in {draw.name}: a proxy may "
            "represent only one participant."
        )
    if Activation.objects.filter(draw=draw, member__id_number=nominee.id_number).exists():
        return f"{nominee.name} has tickets in {draw.name}: a proxy may not take part in the draw they stand in for."
    return None


def _locked_draws(draw_ids: Sequence[int]) -> list[Draw]:
    """The draws, locked in id order (no deadlock between two desks) with what the checks read."""
    return _chosen_draws(draw_ids, lock=True)


def _chosen_draws(draw_ids: Sequence[int], *, lock: bool) -> list[Draw]:
    rows = Draw.objects.select_related("series", "series__promotion", "property")
    if lock:
        rows = rows.select_for_update(of=("self",))
    draws = list(rows.filter(pk__in=set(draw_ids)).order_by("pk"))
    if not draws or len(draws) != len(set(draw_ids)):
        raise DomainError("Choose at least one draw that exists.", code="unknown_draw")
    if lock:  # a nominee may be activating: the activation re-checks the register (Draw.activation_epoch)
        Draw.objects.filter(pk__in=[d.pk for d in draws]).bump_activation_epoch()
    days = {timezone.localtime(d.scheduled_at).date() for d in draws}
    if len(days) > 1:
        raise DomainError("Several draws at once must be on one promotional day.", code="several_days")
    return draws


def _check_desk_property(actor: Actor, draws: Sequence[Draw], what: str) -> None:
    """The desk registers proxies and declines only for its own properties' draws."""
    check_staff_property(actor, *{d.property_id: d.property for d in draws}.values(), what=what, done="registered")


def _nominee(nominee: Nominee) -> Nominee:
    name = " ".join(nominee.name.split())
    if not name:
        raise DomainError("Type the proxy's full name as on their ID.", code="no_name")
    try:
        document = identify_document(nominee.id_type, nominee.id_number)
    except ValidationError as error:
        raise DomainError(f"The proxy's ID: {error.messages[0]}", code="invalid_identity") from None
    born = nominee.member.date_of_birth if nominee.member else document.date_of_birth or nominee.date_of_birth
    if born is None:
        raise DomainError(
            "Type the proxy's date of birth as on their document: a proxy must be 18 or older.", code="no_birth_date"
        )
    return Nominee(name, document.id_type, document.number, nominee.phone.strip(), nominee.member, born)


def _check_nomination(actor: Actor, participant: Member, draws: Sequence[Draw], nominee: Nominee, now) -> None:
    _check_desk_property(actor, draws, "proxies")
    for draw in draws:
        refusal = proxy_refusal(draw=draw, participant=participant, now=now) or _nominee_refusal(
            draw, participant, nominee, now
        )
        if refusal:
            raise DomainError(refusal, code="proxy_refused")


def proxy_nomination_check(
    *, actor: Actor, participant: Member, draw_ids: Sequence[int], nominee: Nominee, now: dt.datetime | None = None
) -> Nominee:
    """Everything proxy_nominate checks but the signatures, before the form is printed for
    signing: the form never carries a nomination the desk would then refuse. Writes nothing;
    proxy_nominate checks it all again under the lock. Returns the nominee as registered
    (name tidied, ID number normalised)."""
    if actor.user is None:
        raise DomainError("Only a signed-in member of the desk can register a proxy.", code="no_user")
    nominee = _nominee(nominee)
    _check_nomination(actor, participant, _chosen_draws(draw_ids, lock=False), nominee, now or timezone.now())
    return nominee


def proxy_nominate(
    *,
    actor: Actor,
    participant: Member,
    draw_ids: Sequence[int],
    nominee: Nominee,
    participant_id_seen: bool,
    nominee_id_seen: bool,
    form_signed: bool,
    now: dt.datetime | None = None,
) -> list[ProxyNomination]:
    """Register `nominee` as `participant`'s proxy for each draw (several draws of one
    promotional day at once, when asked): all or none. Both ID documents must have been seen and
    the form signed (Fast Lane rules 109-113, Golden Horse rule 12, Royal Flush rules 42-46).
    A proxy is never entitled to a prize: the nomination gives the nominee nothing of their own."""
    if actor.user is None:
        raise DomainError("Only a signed-in member of the desk can register a proxy.", code="no_user")
    if not (participant_id_seen and nominee_id_seen and form_signed):
        raise DomainError(
            "Both ID documents must be seen and the proxy form signed by both before the nomination is registered.",
            code="not_presented",
        )
    nominee = _nominee(nominee)
    now = now or timezone.now()
    batch = uuid.uuid4()
    try:
        with transaction.atomic():
            nominations = []
            draws = _locked_draws(draw_ids)
            _check_nomination(actor, participant, draws, nominee, now)
            for draw in draws:
                nominations.append(
                    ProxyNomination.objects.create(
                        draw=draw,
                        participant=participant,
                        nominee_name=nominee.name,
                        nominee_id_type=nominee.id_type,
                        nominee_id_number=nominee.id_number,
                        nominee_phone=nominee.phone,
                        nominee_member=nominee.member,
                        participant_id_seen=True,
                        nominee_id_seen=True,
                        form_signed=True,
                        batch=batch,
                        registered_by=actor.user,
                        registered_at=now,
                    )
                )
            for nomination in nominations:
                audit_log(
                    actor=actor,
                    action="proxy.nominated",
                    obj=nomination,
                    data={
                        "draw": nomination.draw_id,
                        "participant": participant.card_number,
                        "nominee": nominee.name,
                        "nominee_id_last4": nominee.id_number[-4:],
                        "batch": str(batch),
                    },
                )
    except IntegrityError:
        # Another desk registered the same nominee or participant a moment ago: the partial
        # unique indexes refused the second one.
        raise DomainError(
            "This nominee or participant was registered for this draw at another desk a moment ago.",
            code="proxy_refused",
        ) from None
    return nominations


def _started_refusal(draw: Draw, what: str) -> str | None:
    """Once a draw has started its registers are the record the stage team works from: a
    nomination or a decline then stays as it was (a declined winner must not become a no-show)."""
    if draw.state().has_started:
        return f"{draw.name} has started: {what} can no longer be changed."
    return None


def nomination_revoke_refusal(nomination: ProxyNomination) -> str | None:
    """Why the nomination cannot be revoked, or None: the member page asks this before offering
    Revoke, the service again under the draw's lock."""
    if not nomination.is_live:
        return "This nomination was already revoked."
    return _started_refusal(nomination.draw, "its proxy nominations")


def _locked_draw_of(model, pk: int) -> Draw:
    """The draw of a nomination or decline, locked as the draw's start locks it, so a revoke and
    the start cannot cross."""
    draw_id = model.objects.filter(pk=pk).values_list("draw_id", flat=True).first()
    if draw_id is None:
        raise DomainError("This registration no longer exists.", code="unknown_registration")
    return Draw.objects.select_for_update(of=("self",)).get(pk=draw_id)


def proxy_revoke(*, actor: Actor, nomination_id: int, reason: str, now: dt.datetime | None = None) -> ProxyNomination:
    """Revoke a nomination, keeping it on record with who revoked it, when and why; refused once
    its draw has started."""
    if not reason.strip():
        raise DomainError("Say why the nomination is revoked: the reason is kept.", code="no_reason")
    now = now or timezone.now()
    with transaction.atomic():
        draw = _locked_draw_of(ProxyNomination, nomination_id)
        nomination = ProxyNomination.objects.select_for_update().get(pk=nomination_id)
        nomination.draw = draw
        check_staff_property(actor, draw.property, what="proxies", done="registered")
        refusal = nomination_revoke_refusal(nomination)
        if refusal:
            raise DomainError(refusal, code="already_revoked" if not nomination.is_live else "draw_started")
        nomination.revoked_at, nomination.revoked_by, nomination.revoke_reason = now, actor.user, reason.strip()
        nomination.save(update_fields=["revoked_at", "revoked_by", "revoke_reason"])
        audit_log(actor=actor, action="proxy.revoked", obj=nomination, data={"reason": reason.strip()})
    return nomination


def decline_refusal(*, draw: Draw, member: Member, now: dt.datetime) -> str | None:
    """Why `member` cannot register a decline for `draw` now, or None: inside the draw's decline
    window, once per draw, a participant who may take part."""
    refusal = _window_refusal(draw, draw.declines_open_at, draw.declines_close_at, "Decline registrations", now)
    if refusal:
        return refusal
    if DeclineRegistration.objects.live().filter(draw=draw, member=member).exists():
        return f"{member.full_name} has already declined to be present at {draw.name}."
    return _participant_refusal(draw, member, now)


def decline_register(
    *, actor: Actor, member: Member, draw_ids: Sequence[int], id_seen: bool, now: dt.datetime | None = None
) -> list[DeclineRegistration]:
    """The member, in person with their own card and ID, declines to be present at each draw
    (every draw of that promotional day, when asked): if drawn they are still a winner and are
    contacted (CPA reg. 11(3); Emnotweni rules 14-15). Nobody can register it for someone else:
    the service takes only the member whose card was swiped."""
    if actor.user is None:
        raise DomainError("Only a signed-in member of the desk can register a decline.", code="no_user")
    if not id_seen:
        raise DomainError(
            "The participant registers in person: check their own ID document first.", code="not_presented"
        )
    now = now or timezone.now()
    batch = uuid.uuid4()
    try:
        with transaction.atomic():
            registrations = []
            draws = _locked_draws(draw_ids)
            _check_desk_property(actor, draws, "declines")
            for draw in draws:
                refusal = decline_refusal(draw=draw, member=member, now=now)
                if refusal:
                    raise DomainError(refusal, code="decline_refused")
                registration = DeclineRegistration.objects.create(
                    draw=draw, member=member, id_seen=True, batch=batch, registered_by=actor.user, registered_at=now
                )
                audit_log(
                    actor=actor,
                    action="decline.registered",
                    obj=registration,
                    data={"draw": draw.pk, "member": member.card_number, "batch": str(batch)},
                )
                registrations.append(registration)
    except IntegrityError:
        raise DomainError(
            f"{member.full_name} was registered for this draw at another desk a moment ago.", code="decline_refused"
        ) from None
    return registrations


def decline_revoke_refusal(registration: DeclineRegistration) -> str | None:
    """Why the decline cannot be withdrawn, or None (the member page asks before offering
    Withdraw; the service asks again under the draw's lock)."""
    if not registration.is_live:
        return "This decline was already withdrawn."
    return _started_refusal(registration.draw, "its declines")


def decline_revoke(
    *, actor: Actor, registration_id: int, reason: str, card_number: str, now: dt.datetime | None = None
) -> DeclineRegistration:
    """Withdraw a decline (the participant will be present after all), keeping it on record. As
    the decline was registered in person, it is withdrawn only in person: `card_number` is the
    card the desk swiped and must be the declining member's own (a withdrawal turns a declined
    winner, who still wins, into one who must be present)."""
    if not reason.strip():
        raise DomainError("Say why the decline is withdrawn: the reason is kept.", code="no_reason")
    card_number = (card_number or "").strip()
    if not card_number:
        raise DomainError(
            "The participant withdraws a decline in person: swipe their card first.", code="not_presented"
        )
    now = now or timezone.now()
    with transaction.atomic():
        draw = _locked_draw_of(DeclineRegistration, registration_id)
        registration = DeclineRegistration.objects.select_for_update().select_related("member").get(pk=registration_id)
        registration.draw = draw
        check_staff_property(actor, draw.property, what="declines", done="registered")
        refusal = decline_revoke_refusal(registration)
        if refusal:
            raise DomainError(refusal, code="already_revoked" if not registration.is_live else "draw_started")
        if card_number != registration.member.card_number:
            raise DomainError(
                f"That card is not {registration.member.full_name}'s: only the participant, in person with their "
                "own card, can withdraw their decline.",
                code="not_presented",
            )
        registration.revoked_at, registration.revoked_by = now, actor.user
        registration.revoke_reason = reason.strip()
        registration.save(update_fields=["revoked_at", "revoked_by", "revoke_reason"])
        audit_log(
            actor=actor,
            action="decline.revoked",
            obj=registration,
            data={"reason": reason.strip(), "member": registration.member.card_number, "identified_by": "card"},
        )
    return registration
