"""The points ledger's member check planned for the statement's size (issue 17, item 3).

members_points_refs_check (migration 0011) looked the statement's member ids up one at a time
with LIMIT 1: for a 200,000-row import, 200,000 descents of members_member's primary key (three
buffer visits each), 1.3-2.2 s at load 5, where one merge of the sorted ids with that index in
order took 0.3 s. Without LIMIT 1 the planner weighs the two by the transition table's size
(hash joins off: PostgreSQL 15 would hash all of members_member for an anti-join);
EXECUTE plans the query at each statement, where a cached plan would keep the size of whichever
statement came first in the session (a one-row insert's nested loop for every import after it,
or an import's full index scan for every one-row insert). The property and import job checks
read a handful of distinct ids and stay as they were.
"""

from django.db import migrations

from core.migration_sql import postgresql_only

# The function's part that stays as 0011 wrote it: the property and import job checks (a handful
# of distinct ids), and the error raised with the foreign-key code.
_OTHER_REFS = r"""
    IF missing IS NULL THEN
        SELECT 'property ' || n.property_id INTO missing
          FROM (SELECT DISTINCT property_id FROM new_rows) n
         WHERE NOT EXISTS (SELECT FROM @schema@.members_property p WHERE p.id = n.property_id) LIMIT 1;
    END IF;
    IF missing IS NULL THEN
        SELECT 'import job ' || n.import_job_id INTO missing
          FROM (SELECT DISTINCT import_job_id FROM new_rows WHERE import_job_id IS NOT NULL) n
         WHERE NOT EXISTS (SELECT FROM @schema@.members_importjob j WHERE j.id = n.import_job_id) LIMIT 1;
    END IF;
    IF missing IS NOT NULL THEN
        RAISE EXCEPTION 'members_pointsentry: % does not exist', missing USING ERRCODE = 'foreign_key_violation';
    END IF;
    RETURN NULL;
END $$;
"""

CHECK = (
    r"""
-- No hash join: PostgreSQL 15 hashes the inner side of an anti-join, all of members_member.
-- The sort of the statement's member ids in memory (work_mem), not in a temporary file.
CREATE OR REPLACE FUNCTION @schema@.members_points_refs_check() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, @schema@, pg_temp SET enable_hashjoin = off SET work_mem = '32MB'
AS $$
DECLARE
    missing text;
BEGIN
    EXECUTE 'SELECT ''member '' || n.member_id FROM new_rows n'
            ' WHERE NOT EXISTS (SELECT FROM @schema@.members_member m WHERE m.id = n.member_id)' INTO missing;"""  # noqa: S608 (fixed SQL, no value formatted in)
    + _OTHER_REFS
)

CHECK_BEFORE = (
    r"""
CREATE OR REPLACE FUNCTION @schema@.members_points_refs_check() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, @schema@, pg_temp AS $$
DECLARE
    missing text;
BEGIN
    SELECT 'member ' || n.member_id INTO missing FROM new_rows n
     WHERE NOT EXISTS (SELECT FROM @schema@.members_member m WHERE m.id = n.member_id) LIMIT 1;"""  # noqa: S608 (fixed SQL, no value formatted in)
    + _OTHER_REFS
)


class Migration(migrations.Migration):
    dependencies = [
        ("members", "0019_points_ledger_natural_key"),
    ]

    operations = [
        postgresql_only(CHECK, CHECK_BEFORE, in_schema=True),
    ]
