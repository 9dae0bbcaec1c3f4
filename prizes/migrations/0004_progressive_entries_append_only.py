from django.db import migrations

from core.migration_sql import postgresql_only

# A progressive's entries are its history (issue 14, item 5: "each change an audited entry,
# never edited by hand"): the database refuses to change or delete one, whoever asks, and
# refuses an entry whose balance is not the progressive's last balance (its base before any)
# plus the entry's change, so no row can make the jackpot jump. The function names its tables
# with their schema and puts pg_temp last (see draws 0010).
FORWARD = r"""
CREATE OR REPLACE FUNCTION @schema@.prizes_progressiveentry_guard() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, @schema@, pg_temp AS $$
DECLARE
    last_balance bigint;
BEGIN
    IF TG_OP <> 'INSERT' THEN
        RAISE EXCEPTION 'progressive entries are never changed or deleted: % refused on prizes_progressiveentry',
            TG_OP USING ERRCODE = 'insufficient_privilege';
    END IF;
    SELECT e.balance_cents INTO last_balance
      FROM @schema@.prizes_progressiveentry AS e
     WHERE e.progressive_id = NEW.progressive_id
     ORDER BY e.id DESC LIMIT 1;
    IF NOT FOUND THEN
        SELECT p.base_cents INTO last_balance FROM @schema@.prizes_progressive AS p WHERE p.id = NEW.progressive_id;
    END IF;
    IF NEW.balance_cents IS DISTINCT FROM last_balance + NEW.change_cents THEN
        RAISE EXCEPTION 'a progressive entry must follow the last balance (% + % is not %): INSERT refused',
            last_balance, NEW.change_cents, NEW.balance_cents USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
END;
$$;

CREATE TRIGGER prizes_progressiveentry_guard
    BEFORE INSERT OR UPDATE OR DELETE ON @schema@.prizes_progressiveentry
    FOR EACH ROW EXECUTE FUNCTION @schema@.prizes_progressiveentry_guard();
"""

BACKWARD = r"""
DROP TRIGGER IF EXISTS prizes_progressiveentry_guard ON @schema@.prizes_progressiveentry;
DROP FUNCTION IF EXISTS @schema@.prizes_progressiveentry_guard();
"""


class Migration(migrations.Migration):
    dependencies = [("prizes", "0003_progressive_jackpots")]
    operations = [postgresql_only(FORWARD, BACKWARD, in_schema=True)]
