"""testing/flush.py: a transactional test's tables are emptied by DELETE with the row triggers
off, and the triggers are back on for the next test."""

import pytest
from django.core.management.color import no_style
from django.core.management.sql import sql_flush
from django.db import connection, transaction

from core.audit import Actor, audit_log
from core.models import AuditEvent
from members.models import Member
from members.tests.factories import MemberFactory


@pytest.mark.django_db(transaction=True)
def test_the_flush_empties_every_table_the_audit_log_included_and_leaves_its_guard_on(reference_data):
    MemberFactory()
    audit_log(actor=Actor.system("test"), action="test.flushed", obj=None)
    assert Member.objects.exists() and AuditEvent.objects.exists()

    statements = sql_flush(no_style(), connection, reset_sequences=False)
    assert not any(sql.startswith("TRUNCATE") for sql in statements), statements
    connection.ops.execute_sql_flush(statements)

    with connection.cursor() as cursor:
        for table in connection.introspection.django_table_names(only_existing=True, include_views=False):
            cursor.execute(f"SELECT EXISTS (SELECT 1 FROM {connection.ops.quote_name(table)})")  # noqa: S608 (model tables)
            assert cursor.fetchone() == (False,), f"{table} was not emptied"
        cursor.execute("SHOW session_replication_role")
        assert cursor.fetchone() == ("origin",), "the triggers stayed off after the flush"

    audit_log(actor=Actor.system("test"), action="test.flushed", obj=None)
    with pytest.raises(Exception, match="append-only"), transaction.atomic():
        AuditEvent.objects.all().delete()
