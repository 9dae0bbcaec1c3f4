"""The application's database role cannot rewrite the audit log, however it tries.

The suite connects as a superuser (it creates and flushes the test database); each test here
switches to the application's role with SET LOCAL ROLE inside a savepoint, as production's
web, worker and beat connect as that role, and the savepoint's rollback switches back.
"""

import datetime as dt
from contextlib import contextmanager

import pytest
from django.conf import settings
from django.db import DatabaseError, connection, transaction

from core.audit import Actor, audit_log
from core.models import AuditEvent
from members.models import Property

ROLE = settings.DB_APP_ROLE


@contextmanager
def as_app_role():
    """A cursor acting as the application's role until the block ends."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f'SET LOCAL ROLE "{ROLE}"')
        yield cursor
        cursor.execute("RESET ROLE")


@pytest.fixture
def event(db):
    return audit_log(actor=Actor.system("test"), action="test.happened", data={"n": 1})


def current_user() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_user")
        return cursor.fetchone()[0]


@pytest.mark.parametrize(
    ("attempt", "refusal"),
    [
        ("TRUNCATE core_auditevent", "permission denied"),
        ("ALTER TABLE core_auditevent DISABLE TRIGGER core_auditevent_append_only", "must be owner"),
        ("ALTER TABLE core_auditevent DISABLE TRIGGER ALL", "must be owner"),
        ("SET session_replication_role = replica", "permission denied"),
        ("DROP TRIGGER core_auditevent_append_only ON core_auditevent", "must be owner"),
        ("DROP TRIGGER core_auditevent_stamp ON core_auditevent", "must be owner"),
        ("DROP TABLE core_auditevent", "must be owner"),
        ("UPDATE core_auditevent SET actor_label = 'someone else'", "permission denied"),
        ("DELETE FROM core_auditevent", "permission denied"),
        (
            "CREATE OR REPLACE FUNCTION core_auditevent_refuse_change() RETURNS trigger AS $$ BEGIN RETURN NEW; END $$ "
            "LANGUAGE plpgsql",
            "permission denied|must be owner",
        ),
    ],
)
def test_the_app_role_cannot_rewrite_the_audit_log(event, attempt, refusal):
    with pytest.raises(DatabaseError, match=refusal), as_app_role() as cursor:
        cursor.execute(attempt)
    assert current_user() != ROLE  # the savepoint's rollback ended the role switch
    assert AuditEvent.objects.filter(pk=event.pk, action="test.happened").exists()


def test_the_app_role_holds_no_dangerous_privilege_on_the_audit_table(db):
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT privilege_type FROM information_schema.role_table_grants "
            "WHERE grantee = %s AND table_name = 'core_auditevent' ORDER BY 1",
            [ROLE],
        )
        assert [row[0] for row in cursor.fetchall()] == ["INSERT", "SELECT"]
        cursor.execute("SELECT rolsuper, rolcreaterole, rolbypassrls FROM pg_roles WHERE rolname = %s", [ROLE])
        assert cursor.fetchone() == (False, False, False)


def test_a_back_dated_insert_gets_the_database_time(db):
    with as_app_role() as cursor:
        cursor.execute("SELECT clock_timestamp()")
        before = cursor.fetchone()[0]
        cursor.execute(
            "INSERT INTO core_auditevent (created_at, actor_label, action, object_type, object_id, data) "
            "VALUES ('2020-01-01 09:00+02', 'manager', 'draw.winner_changed', '', '', '{}') RETURNING id, created_at"
        )
        event_id, stamped = cursor.fetchone()
    assert stamped >= before
    assert AuditEvent.objects.get(pk=event_id).created_at == stamped
    assert stamped.year != 2020


def test_the_orm_cannot_back_date_an_event_either(db):
    event = AuditEvent.objects.create(
        created_at=dt.datetime(2020, 1, 1, tzinfo=dt.UTC), actor_label="manager", action="test.back_dated"
    )
    event.refresh_from_db()
    assert event.created_at.year != 2020


def test_audit_log_returns_the_time_the_database_stamped(db):
    event = audit_log(actor=Actor.system("test"), action="test.happened")
    assert event.created_at is not None
    assert AuditEvent.objects.get(pk=event.pk).created_at == event.created_at


def test_the_app_role_can_append_to_and_read_the_audit_log(event):
    with as_app_role() as cursor:
        cursor.execute(
            "INSERT INTO core_auditevent (actor_label, action, object_type, object_id, data) "
            "VALUES ('desk', 'test.appended', '', '', '{}') RETURNING id"
        )
        new_id = cursor.fetchone()[0]
        cursor.execute("SELECT count(*) FROM core_auditevent WHERE id IN (%s, %s)", [event.pk, new_id])
        assert cursor.fetchone()[0] == 2


def test_the_app_role_can_write_the_other_tables(reference_data):
    grc = reference_data["properties"]["GRC"]
    with as_app_role() as cursor:
        cursor.execute("UPDATE members_property SET name = 'Gold Reef City Casino' WHERE id = %s", [grc.pk])
        cursor.execute(
            "INSERT INTO members_property (code, name) VALUES ('TST', 'Test') RETURNING id",
        )
        new_id = cursor.fetchone()[0]
        cursor.execute("DELETE FROM members_property WHERE id = %s", [new_id])
    assert Property.objects.get(pk=grc.pk).name == "Gold Reef City Casino"


def test_the_app_role_cannot_change_the_schema_or_the_migration_history(db):
    for attempt in (
        "CREATE TABLE sneaky (id int)",
        "ALTER TABLE members_property ADD COLUMN sneaky int",
        "INSERT INTO django_migrations (app, name, applied) VALUES ('core', 'x', now())",
    ):
        with pytest.raises(DatabaseError, match=r"permission denied|must be owner"), as_app_role() as cursor:
            cursor.execute(attempt)


def test_migrate_connects_as_the_owner_and_everything_else_as_the_app_role():
    import os
    import subprocess
    import sys

    def user_for(*argv: str) -> str:
        code = f"import sys; sys.argv = {['manage.py', *argv]!r}; import config.settings as s; "
        code += "print(s.DATABASES['default']['USER'])"
        env = {
            **os.environ,
            "APP_ENV": "test",
            "DATABASE_URL": "postgres://promodesk_app:a@db/promodesk",
            "MIGRATION_DATABASE_URL": "postgres://promodesk_owner:o@db/promodesk",
        }
        result = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=settings.BASE_DIR, check=True
        )
        return result.stdout.strip()

    assert user_for("migrate", "--noinput") == "promodesk_owner"
    assert user_for("runserver") == "promodesk_app"
    assert user_for("shell") == "promodesk_app"


def test_a_table_added_by_a_later_migration_is_granted_after_migrate(db):
    from core.dbroles import grant_app_role

    with connection.cursor() as cursor:
        cursor.execute("CREATE TABLE later_table (id int)")
        cursor.execute("REVOKE ALL ON later_table FROM PUBLIC")
        cursor.execute(f'REVOKE ALL ON later_table FROM "{ROLE}"')
    with pytest.raises(DatabaseError, match="permission denied"), as_app_role() as cursor:
        cursor.execute("INSERT INTO later_table VALUES (1)")
    grant_app_role(verbosity=0)  # what post_migrate runs after every migrate
    with as_app_role() as cursor:
        cursor.execute("INSERT INTO later_table VALUES (1)")
    with pytest.raises(DatabaseError, match="permission denied"), as_app_role() as cursor:
        cursor.execute("DELETE FROM core_auditevent")
