from django.db import migrations

from core.migration_sql import postgresql_only

# The audit log is append-only: the database itself refuses to rewrite it, whoever asks.
# (TRUNCATE is a table-level operation that row triggers do not see; only the database owner
# can run it, and the test suite uses it to reset tables between tests.)
FORWARD = """
CREATE OR REPLACE FUNCTION core_auditevent_refuse_change() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'the audit log is append-only: % refused on core_auditevent', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER core_auditevent_append_only
    BEFORE UPDATE OR DELETE ON core_auditevent
    FOR EACH ROW EXECUTE FUNCTION core_auditevent_refuse_change();
"""

BACKWARD = """
DROP TRIGGER IF EXISTS core_auditevent_append_only ON core_auditevent;
DROP FUNCTION IF EXISTS core_auditevent_refuse_change();
"""


class Migration(migrations.Migration):
    dependencies = [("core", "0001_initial")]
    operations = [postgresql_only(FORWARD, BACKWARD)]
