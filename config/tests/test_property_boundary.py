"""Staff act only at their properties (issue 12, "staff properties are not an access boundary"):
every service that changes something of a property refuses the desk and managers of other
properties (members.staff.check_staff_property, code "other_property") and changes nothing;
superusers and the system (the tick, devices, loaders) act everywhere; a desk or manager login
without a staff profile acts nowhere. The role-by-URL side is in test_permissions.py."""

import datetime as dt

import pytest
import time_machine
from django.core.files.base import ContentFile
from django.urls import reverse

from conftest import make_user
from core.audit import Actor
from core.errors import DomainError
from core.models import AuditEvent
from core.roles import PROMOTIONS_MANAGER, REWARDS_DESK
from draws import engine, services
from draws.models import Draw, DrawStatus
from draws.tests.builders import closed_draw, sast
from draws.tests.factories import make_draw
from members.models import ImportStatus, PointsEntry
from members.services import import_job_create, import_job_run
from members.staff import check_staff_property, staff_act_refusal
from members.tests.factories import MemberFactory
from promotions.models import Promotion, PromotionStatus
from promotions.services import promotion_save, series_save
from promotions.tests.factories import make_series

pytestmark = pytest.mark.django_db

DRAW_AT = sast(2026, 3, 4, 20, 0)
# The manager of the README's demo: Gold Reef City and Golden Horse. Emnotweni is someone else's.
REFUSAL = "You work at Gold Reef City and Golden Horse: draws at Emnotweni are run by its own team."


@pytest.fixture
def manager(reference_data) -> Actor:
    return Actor.for_user(make_user(PROMOTIONS_MANAGER, properties=["GRC", "GH"]))


@pytest.fixture
def desk(reference_data) -> Actor:
    return Actor.for_user(make_user(REWARDS_DESK, properties=["GRC"]))


def refused(call, code: str = "other_property") -> DomainError:
    """Call a service that must refuse, and check it wrote nothing to the audit log."""
    events = AuditEvent.objects.count()
    with pytest.raises(DomainError) as error:
        call()
    assert error.value.code == code, error.value.message
    assert AuditEvent.objects.count() == events
    return error.value


# --- The rule --------------------------------------------------------------------------------


def test_the_refusal_names_the_users_casinos_and_the_other_one(manager, reference_data):
    p = reference_data["properties"]
    assert staff_act_refusal(manager.user, p["EMN"]) == REFUSAL
    assert staff_act_refusal(manager.user, p["GH"]) is None and staff_act_refusal(manager.user, p["GRC"]) is None


def test_superusers_and_the_system_act_everywhere_a_login_without_a_property_nowhere(reference_data):
    emn = reference_data["properties"]["EMN"]
    check_staff_property(Actor.system("tick"), emn)
    check_staff_property(Actor.for_user(make_user("superuser")), emn)
    for role in (REWARDS_DESK, PROMOTIONS_MANAGER):
        with pytest.raises(DomainError) as error:
            check_staff_property(Actor.for_user(make_user(role, properties=())), emn)
        assert error.value.code == "other_property"
        assert "Your login has no property yet" in error.value.message


# --- Draws: schedule, move, cancel, activate, run, RAPS --------------------------------------


def test_a_manager_schedules_moves_and_cancels_only_their_casinos_draws(manager, reference_data):
    emn = make_series(property_code="EMN")
    grc_draw, emn_draw = make_draw(make_series(), DRAW_AT), make_draw(emn, DRAW_AT)
    with time_machine.travel(sast(2026, 3, 1, 9, 0), tick=False):
        refused(lambda: services.draw_schedule(actor=manager, series=emn, scheduled_at=DRAW_AT + dt.timedelta(days=1)))
        refused(lambda: services.series_schedule_draws(actor=manager, series=emn, moments=[DRAW_AT]))
        error = refused(
            lambda: services.draw_move(actor=manager, draw_id=emn_draw.pk, scheduled_at=DRAW_AT, reason="Stage")
        )
        assert "draws at Emnotweni are scheduled by its own team" in error.message
        # Several at once: one of them elsewhere cancels none.
        refused(lambda: services.draws_cancel(actor=manager, draw_ids=[grc_draw.pk, emn_draw.pk], reason="Closed"))
        assert set(Draw.objects.values_list("status", flat=True)) == {DrawStatus.SCHEDULED}
        # At their own casino all of it goes through.
        services.draw_schedule(actor=manager, series=grc_draw.series, scheduled_at=DRAW_AT + dt.timedelta(days=1))
        services.draws_cancel(actor=manager, draw_ids=[grc_draw.pk], reason="Closed")


@time_machine.travel(sast(2026, 3, 4, 10, 0), tick=False)
def test_the_desk_activates_tickets_only_for_its_casinos_draws(desk, reference_data):
    from members.models import Tier
    from members.tests.factories import PointsEntryFactory

    emn = reference_data["properties"]["EMN"]
    queen = MemberFactory(card_number="6100000001", tier=Tier.objects.get(code="QUEEN"), home_property=emn)
    PointsEntryFactory(member=queen, points=500, property=emn)
    windows = [{"day": 0, "open": "08:00", "close": "12:55"}]
    emn_draw = make_draw(make_series(property_code="EMN", windows=windows), sast(2026, 3, 4, 13, 0))
    error = refused(
        lambda: services.activation_create(
            actor=desk, draw_id=emn_draw.pk, card_number=queen.card_number, channel="desk"
        )
    )
    assert error.message == "You work at Gold Reef City: tickets at Emnotweni are activated by its own team."
    assert not emn_draw.activations.exists()
    # An eHost at Emnotweni (a device: no user) still activates there.
    services.activation_create(
        actor=Actor.system("ehost"), draw_id=emn_draw.pk, card_number="6100000001", channel="ehost"
    )


def test_a_manager_runs_only_their_casinos_draws_and_the_tick_runs_every_one(manager, reference_data):
    draw, _ = closed_draw(make_series(property_code="EMN"), DRAW_AT, [3, 4, 5])
    now = DRAW_AT + dt.timedelta(minutes=1)
    assert refused(lambda: engine.draw_start(actor=manager, draw_id=draw.pk, now=now)).message == REFUSAL
    assert Draw.objects.get(pk=draw.pk).status == DrawStatus.CLOSED
    assert engine.draw_start(actor=Actor.system("tick"), draw_id=draw.pk, now=now)
    pick = draw.picks.get()
    refused(lambda: engine.draw_witness_record(actor=manager, draw_id=draw.pk, witness_name="T. Nkosi"))
    refused(
        lambda: engine.pick_outcome_record(
            actor=manager, draw_id=draw.pk, pick_id=pick.pk, outcome="present", id_type_seen="sa_id"
        )
    )
    refused(lambda: engine.draw_advance(actor=manager, draw_id=draw.pk))
    refused(lambda: engine.draw_end_short(actor=manager, draw_id=draw.pk, reason="Bin empty"))
    assert draw.picks.get().outcome == "" and not Draw.objects.get(pk=draw.pk).witness_name


def test_a_manager_keys_serials_only_at_their_casino(manager, reference_data):
    series = make_series(property_code="EMN")
    series.method = "manual"
    series.save()
    draw, _ = closed_draw(series, DRAW_AT, [3])
    engine.draw_start(actor=Actor.system("test"), draw_id=draw.pk, now=DRAW_AT)
    refused(lambda: engine.draw_key_serial(actor=manager, draw_id=draw.pk, serial="2", now=DRAW_AT))
    assert not draw.picks.exists()


def test_a_manager_uploads_a_raps_list_only_at_their_casino(manager, reference_data):
    from draws.tests.raps_fixtures import closed_session, csv_text, player, raps_series, upload

    series = raps_series()
    series.property = reference_data["properties"]["EMN"]
    series.save()
    draw = closed_session(series)
    player("7000000001")
    refused(lambda: upload(draw, csv_text("7000000001,slot,A1,100"), actor=manager))
    assert not hasattr(Draw.objects.get(pk=draw.pk), "raps_list")


# --- Proxies and declines --------------------------------------------------------------------


def test_the_desk_registers_proxies_and_declines_only_for_its_casinos_draws(desk, reference_data):
    from proxies.models import DeclineRegistration, ProxyNomination
    from proxies.services import decline_register
    from proxies.tests.factories import nominate

    person = MemberFactory()
    grc_draw = make_draw(make_series(), DRAW_AT)
    emn_draw = make_draw(make_series(property_code="EMN"), DRAW_AT)
    with time_machine.travel(sast(2026, 3, 4, 10, 0), tick=False):
        error = refused(lambda: nominate(participant=person, draw=emn_draw, actor=desk))
        assert error.message == "You work at Gold Reef City: proxies at Emnotweni are registered by its own team."
        refused(lambda: decline_register(actor=desk, member=person, draw_ids=[grc_draw.pk, emn_draw.pk], id_seen=True))
    assert not ProxyNomination.objects.exists() and not DeclineRegistration.objects.exists()


# --- Promotions and series -------------------------------------------------------------------


def _promotion(code: str, *properties) -> Promotion:
    promotion = Promotion.objects.create(
        code=code, name=code.title(), starts_on="2026-01-01", ends_on="2026-12-31", status=PromotionStatus.DRAFT
    )
    promotion.properties.set(properties)
    return promotion


def test_a_manager_sets_up_a_promotion_only_when_all_its_casinos_are_theirs(manager, reference_data):
    p = reference_data["properties"]
    new = Promotion(code="winter", name="Winter", starts_on="2026-06-01", ends_on="2026-08-31")
    error = refused(lambda: promotion_save(actor=manager, promotion=new, properties=[p["GRC"], p["EMN"]]))
    assert error.message.endswith("promotions at Emnotweni are set up by its own team.")
    shared = _promotion("shared", p["GRC"], p["EMN"])
    shared.name = "Shared, renamed"
    refused(lambda: promotion_save(actor=manager, promotion=shared, properties=[p["GRC"]]))  # dropping EMN too
    assert Promotion.objects.get(pk=shared.pk).name == "Shared"
    own = _promotion("own", p["GRC"])
    own.name = "Own, renamed"
    promotion_save(actor=manager, promotion=own, properties=[p["GRC"], p["GH"]])
    assert Promotion.objects.get(pk=own.pk).name == "Own, renamed"


def test_a_manager_sets_up_a_series_only_at_their_casinos(manager, reference_data):
    from promotions.models import DrawSeries

    p = reference_data["properties"]
    series = make_series()  # at Gold Reef City, its promotion at Gold Reef City
    series.promotion.properties.add(p["EMN"])
    tiers, desk_tiers = list(series.eligible_tiers.all()), list(series.desk_assisted_tiers.all())

    def save(s):
        return series_save(actor=manager, series=s, eligible_tiers=tiers, desk_tiers=desk_tiers, rule=s.rule)

    series.property = p["EMN"]  # moved to a casino that is not theirs
    refused(lambda: save(series))
    assert DrawSeries.objects.get(pk=series.pk).property == p["GRC"]
    elsewhere = make_series(property_code="EMN")
    elsewhere.name = "Renamed elsewhere"
    refused(lambda: save(elsewhere))
    series.property = p["GRC"]
    series.name = "Renamed at home"
    save(series)
    assert DrawSeries.objects.get(pk=series.pk).name == "Renamed at home"


# --- Imports ---------------------------------------------------------------------------------


def test_a_points_file_is_imported_only_for_the_importers_casinos(manager, reference_data):
    MemberFactory(card_number="3100000001")
    rows = [
        "card_number,property,earned_at,points,reference",
        "3100000001,GRC,2026-01-10,50,A",
        "3100000001,EMN,2026-01-10,9,B",
    ]
    text = "\n".join(rows) + "\n"
    job = import_job_create(actor=manager, kind="points", file=ContentFile(text.encode()), name="p.csv")
    job = import_job_run(job_id=job.pk, actor=manager)
    assert job.status == ImportStatus.FAILED and not PointsEntry.objects.exists()
    assert list(job.row_errors.values_list("line", "message")) == [
        (3, "You work at Gold Reef City and Golden Horse: points at Emnotweni are imported by its own team")
    ]
    # The system (the command line) imports every casino's points.
    job = import_job_create(actor=Actor.system("cli"), kind="points", file=ContentFile(text.encode()), name="p.csv")
    assert import_job_run(job_id=job.pk, actor=Actor.system("cli")).status == ImportStatus.SUCCEEDED


# --- Pages -----------------------------------------------------------------------------------


def test_another_casinos_draw_page_offers_its_manager_no_button(client, reference_data):
    draw, _ = closed_draw(make_series(property_code="EMN"), DRAW_AT, [3, 4])
    client.force_login(make_user(PROMOTIONS_MANAGER, properties=["GRC", "GH"]))
    with time_machine.travel(DRAW_AT - dt.timedelta(minutes=30), tick=False):
        page = client.get(reverse("draws:detail", args=[draw.pk])).content.decode()
    assert 'id="start-form"' not in page and reverse("draws:cancel", args=[draw.pk]) not in page
    assert reverse("draws:move", args=[draw.pk]) not in page
    assert REFUSAL in page
    client.force_login(make_user(PROMOTIONS_MANAGER, properties=["EMN"]))
    with time_machine.travel(DRAW_AT - dt.timedelta(minutes=30), tick=False):
        page = client.get(reverse("draws:detail", args=[draw.pk])).content.decode()
    assert 'id="start-form"' in page and reverse("draws:cancel", args=[draw.pk]) in page


@time_machine.travel(sast(2026, 3, 4, 10, 0), tick=False)
def test_the_draws_list_offers_the_desk_activation_only_at_its_casino(client, reference_data):
    windows = [{"day": 0, "open": "08:00", "close": "12:55"}]
    grc = make_draw(make_series(windows=windows), sast(2026, 3, 4, 13, 0))
    emn = make_draw(make_series(property_code="EMN", windows=windows), sast(2026, 3, 4, 13, 0))
    client.force_login(make_user(REWARDS_DESK, properties=["GRC"]))
    page = client.get(reverse("draws:list"), {"property": "all", "when": "all"}).content.decode()
    assert reverse("draws:activate", args=[grc.pk]) in page
    assert reverse("draws:activate", args=[emn.pk]) not in page


def test_the_promotion_page_offers_a_manager_only_their_casinos_series(client, reference_data):
    grc, emn = make_series(), make_series(property_code="EMN")  # one promotion at both
    client.force_login(make_user(PROMOTIONS_MANAGER, properties=["GRC", "GH"]))
    page = client.get(reverse("promotions:detail", args=[grc.promotion_id])).content.decode()
    assert reverse("promotions:series_edit", args=[grc.pk]) in page
    assert reverse("draws:series_schedule", args=[grc.pk]) in page
    assert reverse("promotions:series_edit", args=[emn.pk]) not in page
    assert reverse("draws:series_schedule", args=[emn.pk]) not in page
    assert reverse("promotions:edit", args=[grc.promotion_id]) not in page  # Emnotweni is in it


def test_the_demo_manager_runs_the_demo_draws_of_their_casinos_and_the_system_the_others(reference_data):
    from draws.demo import load_demo_promotion
    from draws.demo_runs import load_demo_runs
    from members.demo import STAFF_PROPERTIES, seed_members

    home, others = STAFF_PROPERTIES["manager"]
    now = sast(2025, 10, 16, 10, 0)
    with time_machine.travel(now, tick=False):
        manager = make_user(PROMOTIONS_MANAGER, username="manager", properties=[home, *others])
        seed_members(count=120, recorder=manager)
        load_demo_promotion(now=now)
        assert load_demo_runs(now=now).completed == 4
    started_by = dict(Draw.objects.filter(status=DrawStatus.DRAWN).values_list("property__code", "started_by"))
    assert started_by == {"GRC": "manager", "GH": "manager", "EMN": "system:seed_demo", "MC": "system:seed_demo"}


@time_machine.travel(sast(2026, 3, 4, 10, 0), tick=False)
def test_the_member_page_and_the_proxy_form_offer_the_desk_only_its_casinos_draws(client, reference_data):
    from members.tests.factories import PointsEntryFactory
    from proxies.tests.factories import nominate

    p = reference_data["properties"]
    person = MemberFactory(card_number="6200000001")
    windows = [{"day": -1, "open": "00:00", "close_before": 5}]
    draws = {}
    for code in ("GRC", "EMN"):
        PointsEntryFactory(member=person, points=500, property=p[code])
        draws[code] = make_draw(make_series(property_code=code, windows=windows), sast(2026, 3, 4, 12, 0))
        services.activation_create(
            actor=Actor.system("ehost"), draw_id=draws[code].pk, card_number=person.card_number, channel="ehost"
        )
    emn_nomination = nominate(participant=person, draw=draws["EMN"], now=sast(2026, 3, 4, 10, 0))
    client.force_login(make_user(REWARDS_DESK, properties=["GRC"]))
    page = client.get(reverse("members:detail", args=[person.pk])).content.decode()
    assert reverse("proxies:nomination_revoke", args=[emn_nomination.pk]) not in page
    form = client.get(reverse("proxies:member_decline", args=[person.pk])).context["form"]
    assert [pk for pk, _ in form.fields["draws"].choices] == [draws["GRC"].pk]
    page = client.get(reverse("proxies:member_decline", args=[person.pk])).content.decode()
    assert "You work at Gold Reef City: declines at Emnotweni are registered by its own team." in page
    client.force_login(make_user(REWARDS_DESK, properties=["EMN"]))
    page = client.get(reverse("members:detail", args=[person.pk])).content.decode()
    assert reverse("proxies:nomination_revoke", args=[emn_nomination.pk]) in page
