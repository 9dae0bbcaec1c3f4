"""Demo data for `make run`: properties, tiers and a few thousand synthetic members.

Deterministic (a fixed random seed), so two machines show the same people.
"""

import datetime as dt
import random

from django.db import transaction
from django.utils import timezone
from stdnum import luhn

from members.cards import card_numbers_issue
from members.identity import IdType
from members.models import Exclusion, ExclusionKind, Member, PointsEntry, Property, Tier
from members.staff import staff_profile_set

PROPERTIES = [
    ("GRC", "Gold Reef City"),
    ("GH", "Golden Horse"),
    ("EMN", "Emnotweni"),
    ("MC", "Montecasino"),
]
TIERS = [("TEN", "Ten"), ("JACK", "Jack"), ("QUEEN", "Queen"), ("KING", "King"), ("ACE", "Ace")]
# Where the demo logins work (username -> home property, further properties): the desk and the
# cash desk at Gold Reef City, the manager looking after Gold Reef City and Golden Horse. The
# auditor and the admin have no property: they see every casino.
STAFF_PROPERTIES = {
    "desk": ("GRC", ()),
    "cashier": ("GRC", ()),
    "manager": ("GRC", ("GH",)),
}
# Most members sit in the lower tiers, as in any rewards programme.
TIER_WEIGHTS = [45, 25, 15, 10, 5]

FIRST_NAMES = [
    "Thabo",
    "Sipho",
    "Lerato",
    "Naledi",
    "Johan",
    "Pieter",
    "Anele",
    "Zanele",
    "Bongani",
    "Nomsa",
    "Themba",
    "Ayanda",
    "Kagiso",
    "Lindiwe",
    "Mpho",
    "Palesa",
    "Riaan",
    "Charlene",
    "Priya",
    "Rajesh",
    "Fatima",
    "Yusuf",
    "Karabo",
    "Tshepo",
    "Busisiwe",
    "Andile",
    "Elsabe",
    "Hendrik",
    "Nokuthula",
    "Sibusiso",
    "Refilwe",
    "Lwazi",
    "Marietjie",
    "Kobus",
    "Ashwin",
    "Nadia",
    "Michelle",
    "Graham",
    "Bheki",
    "Dineo",
]
LAST_NAMES = [
    "Nkosi",
    "Dlamini",
    "Ndlovu",
    "Mokoena",
    "Khumalo",
    "van der Merwe",
    "Botha",
    "Naidoo",
    "Pillay",
    "Mthembu",
    "Zulu",
    "Sithole",
    "Mahlangu",
    "Molefe",
    "Pretorius",
    "Coetzee",
    "Venter",
    "Govender",
    "Moodley",
    "Shabalala",
    "Mabaso",
    "Maseko",
    "Radebe",
    "Mkhize",
    "Petersen",
    "Jacobs",
    "Fourie",
    "Nel",
    "Joubert",
    "Smit",
    "Baloyi",
    "Mathebula",
    "Chauke",
    "Ngwenya",
    "Hadebe",
    "Williams",
    "Adams",
    "Steyn",
    "Kruger",
]


def sa_id_number(born: dt.date, rng: random.Random) -> str:
    sequence = rng.randrange(0, 10000)  # 0000-4999 female, 5000-9999 male
    body = f"{born:%y%m%d}{sequence:04d}08"
    return body + luhn.calc_check_digit(body)


def ensure_reference_data() -> tuple[list[Property], list[Tier]]:
    properties = [Property.objects.update_or_create(code=c, defaults={"name": n})[0] for c, n in PROPERTIES]
    tiers = [
        Tier.objects.update_or_create(code=c, defaults={"name": n, "rank": rank})[0]
        for rank, (c, n) in enumerate(TIERS, start=1)
    ]
    return properties, tiers


def seed_staff_properties(users: dict, *, actor) -> None:
    """Give the demo logins their property (audited; a re-run changes nothing)."""
    properties = {p.code: p for p in ensure_reference_data()[0]}
    for username, (home, others) in STAFF_PROPERTIES.items():
        if username in users:
            staff_profile_set(
                actor=actor,
                user=users[username],
                home_property=properties[home],
                other_properties=[properties[code] for code in others],
            )


@transaction.atomic
def seed_members(*, count: int, recorder, seed: int = 2026) -> int:
    """Create up to `count` demo members; returns how many were added (0 on a re-run)."""
    properties, tiers = ensure_reference_data()
    missing = count - Member.objects.count()
    if missing <= 0:
        return 0
    rng = random.Random(seed + Member.objects.count())
    today = timezone.localdate()
    cards = card_numbers_issue(missing)
    members = []
    used_ids = set(Member.objects.values_list("id_number", flat=True))
    for index, card in enumerate(cards):
        under_age = index % 250 == 7  # a handful of under-18 sign-ups to show refusals
        age_days = rng.randrange(16 * 365, 17 * 365) if under_age else rng.randrange(18 * 365 + 1, 85 * 365)
        born = today - dt.timedelta(days=age_days)
        first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
        if index % 40 == 3:
            id_type, id_number = IdType.PASSPORT, f"P{rng.randrange(10**7, 10**8)}"
        else:
            id_type, id_number = IdType.SA_ID, sa_id_number(born, rng)
        if id_number in used_ids:
            continue
        used_ids.add(id_number)
        members.append(
            Member(
                card_number=card,
                first_name=first,
                last_name=last,
                search_name=f"{first} {last}".lower(),
                id_type=id_type,
                id_number=id_number,
                date_of_birth=born,
                phone=f"+27 8{rng.randrange(10**7, 10**8)}",
                email=f"{first}.{last}{index}@example.co.za".lower().replace(" ", ""),
                tier=rng.choices(tiers, weights=TIER_WEIGHTS)[0],
                home_property=rng.choice(properties),
                app_registered_on=today - dt.timedelta(days=rng.randrange(1, 900)) if rng.random() < 0.4 else None,
                playtsogo_active_since=today - dt.timedelta(days=rng.randrange(1, 400)) if rng.random() < 0.2 else None,
            )
        )
    Member.objects.bulk_create(members, batch_size=1000)
    _seed_exclusions(members, recorder, rng)
    _seed_points(members, properties, rng)
    return len(members)


def _seed_exclusions(members: list[Member], recorder, rng: random.Random) -> None:
    kinds = [
        (ExclusionKind.SELF_EXCLUSION, "Self-exclusion request at the Rewards desk (12 months)."),
        (ExclusionKind.REFUSAL_OF_ENTRY, "Refusal of Entry order issued by security."),
        (ExclusionKind.CONNECTED_PERSON, "Spouse of a Gold Reef City employee."),
    ]
    now = timezone.now()
    exclusions = []
    for index, member in enumerate(m for i, m in enumerate(members) if i % 150 == 11):
        kind, reason = kinds[index % len(kinds)]
        exclusions.append(
            Exclusion(
                id_type=member.id_type,
                id_number=member.id_number,
                full_name=member.full_name,
                kind=kind,
                reason=reason,
                starts_at=now - dt.timedelta(days=rng.randrange(10, 300)),
                recorded_by=recorder,
            )
        )
    Exclusion.objects.bulk_create(exclusions)


def _seed_points(members: list[Member], properties: list[Property], rng: random.Random) -> None:
    now = timezone.now()
    entries = []
    for member in members:
        for n in range(rng.randrange(0, 12)):
            entries.append(
                PointsEntry(
                    member=member,
                    property=member.home_property if rng.random() < 0.8 else rng.choice(properties),
                    earned_at=now - dt.timedelta(minutes=rng.randrange(10, 60 * 24 * 45)),
                    points=rng.randrange(5, 400),
                    reference=f"DEMO-{member.card_number}-{n}",
                )
            )
    PointsEntry.objects.bulk_create(entries, batch_size=5000, ignore_conflicts=True)
