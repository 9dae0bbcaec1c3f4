import django.db.models.functions.datetime
from django.db import migrations, models

from core.migration_sql import postgresql_only

# Whatever an INSERT says, the row is stamped with the database's clock: a back-dated event
# cannot be written, not even by raw SQL. (clock_timestamp: the moment of the insert itself,
# not the start of a long transaction.)
FORWARD = """
CREATE OR REPLACE FUNCTION core_auditevent_stamp() RETURNS trigger AS $$
BEGIN
    NEW.created_at := clock_timestamp();
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER core_auditevent_stamp
    BEFORE INSERT ON core_auditevent
    FOR EACH ROW EXECUTE FUNCTION core_auditevent_stamp();
"""

BACKWARD = """
DROP TRIGGER IF EXISTS core_auditevent_stamp ON core_auditevent;
DROP FUNCTION IF EXISTS core_auditevent_stamp();
"""


class Migration(migrations.Migration):
    dependencies = [("core", "0002_audit_append_only")]
    operations = [
        migrations.AlterField(
            model_name="auditevent",
            name="created_at",
            field=models.DateTimeField(
                db_default=django.db.models.functions.datetime.Now(), db_index=True, editable=False
            ),
        ),
        postgresql_only(FORWARD, BACKWARD),
    ]
