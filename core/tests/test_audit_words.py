"""The audit log in words: each event a sentence with links to its objects, its data as
"key: value" text (issue 9, item 6)."""

import pytest
from django.urls import reverse

from core.audit import Actor, audit_log
from core.audit_words import ACTIONS, AREAS, actor_words, describe, details, details_text, object_names
from core.models import AuditEvent
from core.roles import AUDITOR
from draws.services import activation_create, draw_move
from draws.tests.builders import sast
from draws.tests.factories import make_draw
from members.tests.factories import MemberFactory, PointsEntryFactory
from promotions.tests.factories import make_series

pytestmark = pytest.mark.django_db


def sentence(event: AuditEvent, user=None):
    names = object_names([(event.object_type, event.object_id), *_related(event)], user)
    return describe(event, names)


def _related(event):
    return [("draws.draw", str(event.data["draw"]))] if "draw" in event.data else []


@pytest.fixture
def auditor_user(user_for):
    return user_for(AUDITOR)


def test_a_moved_draw_reads_as_a_sentence_naming_both_times_with_a_link(reference_data, auditor_user):
    series = make_series(windows=[{"day": -1, "open": "00:00", "close_before": 5}])
    draw = make_draw(series, sast(2025, 10, 23, 20, 0))
    draw_move(
        actor=Actor(label="manager"),
        draw_id=draw.pk,
        scheduled_at=sast(2025, 10, 26, 13, 0),
        reason="The stage is booked",
        allow_past=True,
    )
    event = AuditEvent.objects.get(action="draw.moved")
    said = sentence(event, auditor_user)
    assert said.text == (
        "manager moved Test cash draw, Sun 26 Oct 2025 13:00 from Thu 23 Oct 2025 20:00 "
        "to Sun 26 Oct 2025 13:00 because The stage is booked."
    )
    assert f'<a href="{reverse("draws:detail", args=[draw.pk])}">Test cash draw, Sun 26 Oct 2025 13:00</a>' in said.html


def test_activated_tickets_name_the_count_the_card_and_the_draw(reference_data, auditor_user):
    series = make_series(windows=[{"day": -1, "open": "00:00", "close_before": 5}], free_tickets_by_tier={"QUEEN": 10})
    draw = make_draw(series, sast(2025, 10, 16, 20, 0))
    member = MemberFactory(card_number="1000012946", tier=reference_data["tiers"]["QUEEN"])
    PointsEntryFactory(member=member, points=600, earned_at=sast(2025, 10, 15, 12, 0))
    activation_create(
        actor=Actor(label="desk"),
        draw_id=draw.pk,
        card_number=member.card_number,
        channel="desk",
        now=sast(2025, 10, 16, 12, 0),
    )
    event = AuditEvent.objects.get(action="tickets.activated")
    said = sentence(event, auditor_user)
    assert said.text == "desk activated 16 tickets for card 1000012946 in Test cash draw, Thu 16 Oct 2025 20:00."
    assert reverse("draws:detail", args=[draw.pk]) in said.html


def test_a_link_is_offered_only_to_who_may_follow_it(reference_data, user_for):
    member = MemberFactory(first_name="Lerato", last_name="Mokoena", card_number="8000000001")
    event = audit_log(actor=Actor(label="desk"), action="member.signed_up", obj=member, data={})
    assert reverse("members:detail", args=[member.pk]) in sentence(event, user_for(AUDITOR)).html
    assert "<a " not in sentence(event, user_for(None)).html
    assert sentence(event).text == "desk signed up Lerato Mokoena (8000000001)."


def test_a_name_is_escaped_not_trusted(reference_data, user_for):
    member = MemberFactory(first_name="<script>x</script>", last_name="O'Neil")
    event = audit_log(actor=Actor(label="<b>desk</b>"), action="member.signed_up", obj=member)
    html = sentence(event, user_for(AUDITOR)).html
    assert "<script>" not in html and "<b>" not in html
    assert "&lt;script&gt;" in html


def test_a_deleted_object_is_named_by_its_kind_and_number(db):
    event = audit_log(actor=Actor(label="manager"), action="draw.cancelled", data={"reason": "Power cut"})
    event.object_type, event.object_id = "draws.draw", "999"
    assert sentence(event).text == "manager cancelled draw 999 because Power cut."


def test_an_unknown_action_still_reads_without_its_code(db):
    event = audit_log(actor=Actor.system("tick"), action="letter.expired", data={"letter": 12})
    said = sentence(event).text
    assert said == "The system (scheduled) letter expired."
    assert "letter.expired" not in said


@pytest.mark.parametrize(
    ("label", "words"),
    [
        ("system:tick", "The system (scheduled)"),
        ("system:something_new", "The system"),
        ("device:GRC:eHost 3", "eHost 3 at GRC"),
        ("anonymous", "Someone not signed in"),
        ("manager", "manager"),
    ],
)
def test_who_did_it_is_said_in_words(label, words):
    assert actor_words(label) == words


def test_details_read_as_key_value_text_in_johannesburg_time(db):
    event = audit_log(
        actor=Actor(label="manager"),
        action="draw.scheduled",
        data={
            "scheduled_at": "2025-10-16T18:00:00+00:00",
            "windows": [["2025-10-16T06:00:00+00:00", "2025-10-16T10:55:00+00:00"]],
            "changes": {"name": ["Old", "New"]},
            "nested": {"slots": 3, "tables": 1200},
            "flag": True,
            "nothing": None,
        },
    )
    rows = dict(details(event))
    assert rows["Draw time"] == "Thu 16 Oct 2025 20:00"
    assert rows["Ticket windows"] == "Thu 16 Oct 2025 08:00 \N{EN DASH} Thu 16 Oct 2025 12:55"
    assert rows["Changed"] == "name: Old \N{RIGHTWARDS ARROW} New"
    assert rows["Nested"] == "slots: 3; tables: 1,200"
    assert rows["Flag"] == "yes"
    assert "Nothing" not in rows
    text = details_text(event)
    for repr_mark in ("{", "}", "[", "]", "'", "None", "True"):
        assert repr_mark not in text


def test_a_long_value_is_cut_on_the_page_but_whole_in_the_export(db):
    event = audit_log(actor=Actor(label="manager"), action="promotion.updated", data={"diff": "x" * 1000})
    assert len(dict(details(event))["Diff"]) == 301
    assert "x" * 1000 in details_text(event)


def test_every_action_of_the_product_has_words_and_an_area():
    import subprocess

    found = subprocess.run(
        [
            "grep",
            "-rhoE",
            r'action="[a-z_]+\.[a-z_]+"',
            "--include=*.py",
            "core",
            "members",
            "promotions",
            "draws",
            "proxies",
            "prizes",
            "records",
            "--exclude-dir=tests",
        ],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.split()
    codes = {line.split('"')[1] for line in found}
    codes |= {"import.restarted", "import.abandoned", "device.revoked", "device.restored"}
    # The admin's audited models (core.admin.AuditedAdmin) write {audit_name}.created/changed/deleted.
    audited = subprocess.run(
        ["grep", "-rhoE", r'audit_name = "[a-z_]+"', "--include=admin.py", "core", "members", "promotions", "draws"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.splitlines()
    names = {line.split('"')[1] for line in audited}
    assert {"property", "tier", "user", "staff_profile"} <= names
    codes |= {f"{name}.{verb}" for name in names for verb in ("created", "changed", "deleted")}
    assert codes - set(ACTIONS) == set()
    assert {code.partition(".")[0] for code in ACTIONS} <= set(AREAS)


def test_names_cost_one_query_per_kind_of_object(reference_data, django_assert_max_num_queries):
    series = make_series()
    draws = [make_draw(series, sast(2025, 10, 16 + day, 20, 0)) for day in range(5)]
    members = [MemberFactory() for _ in range(5)]
    pairs = [("draws.draw", str(d.pk)) for d in draws] + [("members.member", str(m.pk)) for m in members]
    with django_assert_max_num_queries(2):
        names = object_names(pairs)
    assert len(names) == 10


def test_a_series_links_to_its_promotion(reference_data, user_for):
    series = make_series()
    event = audit_log(actor=Actor(label="manager"), action="series.updated", obj=series, data={})
    said = sentence(event, user_for(AUDITOR))
    assert said.text == "manager changed the draw series Test cash draw (Test promotion)."
    assert reverse("promotions:detail", args=[series.promotion_id]) in said.html


def test_a_date_without_a_zone_is_left_as_written(db):
    event = audit_log(actor=Actor(label="m"), action="exclusion.ended", data={"note": "2025-10-16"})
    assert dict(details(event))["Note"] == "2025-10-16"  # not a moment: nothing to convert


def test_stored_choices_read_in_their_words_and_the_sentence_is_not_repeated(reference_data):
    draw = make_draw(make_series(), sast(2025, 10, 16, 20, 0))
    event = audit_log(
        actor=Actor(label="manager"),
        action="draw.pick_outcome",
        obj=draw,
        data={"seq": 2, "k": 2, "pool": "", "card_number": "1000000024", "outcome": "redraw_already_winner"},
    )
    said = sentence(event)
    assert said.text == f"manager recorded the outcome of pick 2 (card 1000000024) in {draw.name}."
    shown = dict(details(event, skip=said.said))
    assert shown == {"Pick number": "2", "Outcome": "Redraw: already a winner of this draw"}
    activation = audit_log(actor=Actor(label="desk"), action="tickets.activated", data={"channel": "desk"})
    assert dict(details(activation)) == {"Channel": "VIP / Rewards desk"}


def test_a_deleted_staff_property_is_named_by_who_it_was_for(db):
    # The admin deletes a staff profile like any audited model (core.admin.AuditedAdmin).
    event = audit_log(
        actor=Actor(label="admin"), action="staff_profile.deleted", data={"was": "thandi at Gold Reef City"}
    )
    event.object_type, event.object_id = "members.staffprofile", "7"
    assert sentence(event).text == "admin deleted the staff property of thandi at Gold Reef City."
