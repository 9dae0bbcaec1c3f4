import datetime as dt

import pytest
import time_machine

from core.audit import Actor
from core.models import AuditEvent
from members.services import member_set_playing
from members.tests.factories import MemberFactory

pytestmark = pytest.mark.django_db

SAST = dt.timezone(dt.timedelta(hours=2))
NOON = dt.datetime(2025, 10, 15, 12, 0, tzinfo=SAST)


def report(member, prop, playing=True):
    return member_set_playing(actor=Actor.system("feed"), member=member, playing=playing, prop=prop)


@time_machine.travel(NOON, tick=False)
def test_it_records_which_propertys_feed_reported_the_play(reference_data):
    member = MemberFactory()
    report(member, reference_data["properties"]["GH"])
    member.refresh_from_db()
    assert (member.playing_now, member.playing_property.code, member.playing_updated_at) == (True, "GH", NOON)


def test_a_repeated_report_keeps_it_fresh_without_a_new_audit_event(reference_data):
    member, grc = MemberFactory(), reference_data["properties"]["GRC"]
    with time_machine.travel(NOON, tick=False):
        report(member, grc)
    with time_machine.travel(NOON + dt.timedelta(minutes=5), tick=False):
        report(member, grc)
    member.refresh_from_db()
    assert member.playing_updated_at == NOON + dt.timedelta(minutes=5)
    assert AuditEvent.objects.filter(action="member.activity_changed").count() == 1


@time_machine.travel(NOON, tick=False)
def test_play_moving_to_another_property_is_a_change_that_is_audited(reference_data):
    member = MemberFactory()
    report(member, reference_data["properties"]["GRC"])
    report(member, reference_data["properties"]["GH"])
    events = AuditEvent.objects.filter(action="member.activity_changed").order_by("pk")
    assert [e.data["property"] for e in events] == ["GRC", "GH"]


def test_a_stop_from_a_casino_the_member_has_left_does_not_close_the_app_where_they_play(reference_data):
    grc, gh = reference_data["properties"]["GRC"], reference_data["properties"]["GH"]
    member = MemberFactory()
    report(member, grc)
    report(member, gh, playing=False)
    member.refresh_from_db()
    assert (member.playing_now, member.playing_property) == (True, grc)
    report(member, grc, playing=False)
    member.refresh_from_db()
    assert member.playing_now is False
