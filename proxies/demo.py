"""Draw night ready in `make run`'s demo (issue 13, item 15): at each property, the demo draw
waiting for Start this evening (draws/demo_runs.py) gets a registered proxy and a decline among
its entrants, so a newcomer can run the stage end to end: Proxy present, Declined, a no-show.

draws may not import proxies, so this is its own step (`manage.py seed_demo_registers`, run by
`make run` after `seed_demo_draws`). Both go through the desk's services (audited, inside the
registers' windows, at the real time: the registers stay open after the freeze until the draw
starts). Idempotent: a draw that already has a live nomination or a live decline keeps it.
"""

import datetime as dt
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.db.models import Sum
from django.utils import timezone

from core.audit import Actor
from core.errors import DomainError
from draws.demo import DEMO_PROMOTION_CODE
from draws.models import Draw, DrawStatus
from members.models import Member
from members.staff import staff_may_act_at
from proxies.models import DeclineRegistration, ProxyNomination
from proxies.services import Nominee, decline_register, proxy_nominate, proxy_refusal

# The demo logins that register at the desk, the first that works at the draw's casino: the
# desk clerk (Gold Reef City), the manager (and Golden Horse), the admin (everywhere).
CLERKS = ("desk", "manager", "admin")
NOMINEE_TRIES = 20  # demo members tried as the nominee (one may be excluded or under 18)


@dataclass
class DemoRegisters:
    nominations: int = 0
    declines: int = 0
    notes: list[str] = field(default_factory=list)  # what could not be registered, and why


def waiting_demo_draws(now: dt.datetime):
    """The demo draws waiting for Start (entries frozen, draw time ahead), one per property."""
    return (
        Draw.objects.filter(series__promotion__code=DEMO_PROMOTION_CODE, status=DrawStatus.CLOSED, scheduled_at__gt=now)
        .select_related("series", "property")
        .order_by("property__code", "scheduled_at")
    )


def load_demo_registers(*, now: dt.datetime | None = None) -> DemoRegisters:
    """A proxy for one entrant and a decline for another, at each waiting demo draw lacking them."""
    now = now or timezone.now()
    added = DemoRegisters()
    for draw in waiting_demo_draws(now):
        clerk = _clerk(draw)
        if clerk is None:
            added.notes.append(f"{draw.name}: no demo login works at {draw.property.name} to register.")
            continue
        entrants = _entrants(draw)
        nominated = ProxyNomination.objects.live().filter(draw=draw, participant__in=entrants).exists()
        declined = DeclineRegistration.objects.live().filter(draw=draw, member__in=entrants).exists()
        # The two entrants with the most tickets, so the stage is likely to pick them tonight.
        decliner, represented = [*entrants, None, None][:2]
        if not declined and decliner is not None:
            try:
                decline_register(actor=clerk, member=decliner, draw_ids=[draw.pk], id_seen=True, now=now)
                added.declines += 1
            except DomainError as refusal:
                added.notes.append(f"{draw.name}: no decline: {refusal.message}")
        if not nominated and represented is not None and draw.series.proxies_allowed:
            refusal = proxy_refusal(draw=draw, participant=represented, now=now)
            if refusal is None and _nominate(draw, represented, clerk, now):
                added.nominations += 1
            else:  # e.g. the proxy forms open at midnight of the draw day
                added.notes.append(f"{draw.name}: no proxy: {refusal or 'no demo member may stand in.'}")
    return added


def _clerk(draw: Draw) -> Actor | None:
    users = {u.username: u for u in get_user_model().objects.filter(username__in=CLERKS, is_active=True)}
    for username in CLERKS:
        user = users.get(username)
        if user is not None and staff_may_act_at(user, draw.property):
            return Actor.for_user(user)
    return None


def _entrants(draw: Draw) -> list[Member]:
    """The draw's entrants, most tickets first (then by id: every load picks the same people)."""
    totals = draw.activations.values("member").annotate(tickets=Sum("tickets")).order_by("-tickets", "member")
    members = Member.objects.in_bulk([row["member"] for row in totals])
    return [members[row["member"]] for row in totals]


def _nominate(draw: Draw, participant: Member, clerk: Actor, now: dt.datetime) -> bool:
    """Nominate a demo member who is not in the draw and stands in for nobody else (they swipe
    their card at the desk): the first the service accepts (one may be excluded or under 18).
    The participant and the window were checked first, so a refusal here is the nominee's."""
    candidates = (
        Member.objects.exclude(activations__draw=draw)
        .exclude(nominations_received__isnull=False)  # one demo proxy per person, across the casinos
        .exclude(pk=participant.pk)
        .order_by("pk")[:NOMINEE_TRIES]
    )
    for person in candidates:
        try:
            proxy_nominate(
                actor=clerk,
                participant=participant,
                draw_ids=[draw.pk],
                nominee=Nominee(person.full_name, person.id_type, person.id_number, person.phone, person),
                participant_id_seen=True,
                nominee_id_seen=True,
                form_signed=True,
                now=now,
            )
            return True
        except DomainError:
            continue
    return False
