import datetime as dt

import pytest
from django.db import DatabaseError, connection, transaction
from django.urls import reverse
from django.utils import timezone

from core.audit import Actor, audit_log
from core.models import AuditEvent


@pytest.fixture
def event(db):
    return audit_log(actor=Actor.system("test"), action="test.happened", data={"n": 1})


def test_the_database_refuses_to_update_an_audit_event(event):
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        AuditEvent.objects.filter(pk=event.pk).update(action="test.rewritten")
    assert AuditEvent.objects.get(pk=event.pk).action == "test.happened"


def test_the_database_refuses_to_delete_an_audit_event(event):
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        AuditEvent.objects.filter(pk=event.pk).delete()
    assert AuditEvent.objects.filter(pk=event.pk).exists()


def test_raw_sql_cannot_rewrite_the_log_either(event):
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("UPDATE core_auditevent SET actor_label = 'someone else'")


def test_an_event_records_who_what_when_and_on_which_object(user_for, reference_data):
    from members.tests.factories import MemberFactory

    user = user_for(None, username="thabo")
    member = MemberFactory()
    event = audit_log(actor=Actor.for_user(user, ip="10.1.2.3"), action="member.viewed", obj=member, data={"x": 1})
    event.refresh_from_db()
    assert (event.actor_id, event.actor_label, event.ip) == (user.pk, "thabo", "10.1.2.3")
    assert (event.object_type, event.object_id, event.data) == ("members.member", str(member.pk), {"x": 1})
    # Stamped by the database's clock (the Python clock may be moved in tests: compare with it).
    with connection.cursor() as cursor:
        cursor.execute("SELECT clock_timestamp()")
        database_now = cursor.fetchone()[0]
    assert dt.timedelta(0) <= database_now - event.created_at < dt.timedelta(seconds=5)


def test_deleting_a_user_leaves_their_events_untouched(user_for):
    user = user_for(None, username="leaver")
    event = audit_log(actor=Actor.for_user(user), action="test.happened")
    user.delete()
    event.refresh_from_db()
    assert event.actor_label == "leaver"


def test_the_audit_page_filters_by_action_actor_object_and_date(manager, db):
    old = audit_log(actor=Actor.system("import"), action="member.signed_up", data={})
    completed = audit_log(actor=Actor.system("tick"), action="import.completed", data={})
    signed_up = audit_log(actor=Actor.system("tick"), action="member.signed_up", data={})

    def shown(**params):
        return [e.pk for e in manager.get(reverse("audit"), params).context["page"]]

    assert len(shown(action="member.signed_up")) == 2
    assert len(shown(action="area:Members")) == 2
    assert len(shown(actor="system:tick")) == 2
    assert shown(object_type="members.member") == []
    # The database dates the events, so "today" is the day of their stamp.
    today = timezone.localdate(old.created_at)
    assert {old.pk, completed.pk, signed_up.pk} <= set(shown(date_from=today.isoformat(), date_to=today.isoformat()))
    assert shown(date_to=(today - dt.timedelta(days=1)).isoformat()) == []
    assert old.pk in shown(actor="system:import")


def test_the_audit_page_shows_the_client_ip_of_a_signed_up_member(desk, reference_data):
    from members.tests.factories import sa_id_for

    desk.post(
        reverse("members:sign_up"),
        {
            "first_name": "Lindiwe",
            "last_name": "Zulu",
            "id_type": "sa_id",
            "id_number": sa_id_for(dt.date(1990, 2, 3)),
            "home_property": reference_data["properties"]["GRC"].pk,
        },
        REMOTE_ADDR="192.0.2.10",
    )
    event = AuditEvent.objects.get(action="member.signed_up")
    assert event.ip == "192.0.2.10"
    assert event.object_type == "members.member"
