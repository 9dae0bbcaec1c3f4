from django.db import migrations

from core.migration_sql import postgresql_only

# Three years (issue 16, part 7; CPA s36 and regulation 11): nothing deletes a promotion's
# records until three years after it ended, whoever asks (the application's role and the owner
# alike). The owner can still ALTER TABLE ... DISABLE TRIGGER: that is the DBA's conscious act
# (README, Production, "Three years"). TRUNCATE is not a row event: the application's role holds
# no TRUNCATE right on any table (core.dbroles), and the owner's TRUNCATE is again the DBA's act.
#
# - records_retention_hold(table, parent kind, parent id) finds the promotion of a row through its
#   draw and answers the last day (Johannesburg) its rows are kept, or NULL when the row may go:
#   * the promotion ended more than three years ago: kept through ends_on + 3 years, deletable
#     from the day after;
#   * a draft promotion (no draw of it took a ticket: its draws' rows would still hold it);
#   * a draft promotion's draw that is scheduled, not frozen and took no ticket (a cancelled draw
#     is kept: cancelling keeps the row);
#   * a RAPS list (and its entries) until its session starts: draws.raps replaces a list whole
#     before the first pick; the replaced list's hashes stay in draws_drawcommitment and the audit
#     log;
#   * a row whose promotion cannot be found (its parent deleted first in the same transaction):
#     kept ('infinity'); delete children first.
#   The application asks the same function before deleting (records.retention), so the clerk
#   reads the refusal in words before the database refuses.
# - One BEFORE DELETE row trigger per table; draws_rapsentry (100,000 rows per upload, deleted
#   on a replacement) is checked once per statement from its transition table, as 0014 of draws
#   does for its guard.
# - Today is the database's: (now() at Africa/Johannesburg)::date, so the tests set ends_on from
#   the database's own date (time_machine does not move PostgreSQL's clock).
# - Functions name their tables with the schema and run with a fixed search_path, pg_temp last;
#   SECURITY INVOKER: every role that may delete may read the tables the function reads.

# (table, parent kind, column of the parent's id): the row's draw, or the row's promotion.
GUARDED = [
    ("promotions_promotion", "promotion", "id"),
    ("draws_draw", "draw", "id"),
    ("draws_activation", "draw", "draw_id"),  # activations and carried entrants (channel 'carried')
    ("draws_drawpick", "draw", "draw_id"),
    ("draws_rapslist", "draw", "draw_id"),
    ("proxies_proxynomination", "draw", "draw_id"),
    ("proxies_declineregistration", "draw", "draw_id"),
    ("prizes_prizeline", "draw", "draw_id"),
    ("prizes_prizeletter", "draw", "draw_id"),
    ("prizes_letterline", "letter", "letter_id"),
    ("prizes_payout", "prize_line", "prize_line_id"),
    ("prizes_progressiveentry", "draw", "draw_id"),
    ("prizes_gameplay", "draw", "draw_id"),
    ("prizes_wildcardbin", "draw", "draw_id"),
]

FUNCTIONS = r"""
CREATE OR REPLACE FUNCTION @schema@.records_retention_hold(tbl text, parent_kind text, parent_id bigint)
RETURNS date LANGUAGE plpgsql STABLE SET search_path = pg_catalog, @schema@, pg_temp AS $$
DECLARE
    the_draw bigint;
    the_promotion bigint;
    ends date;
    promotion_status text;
    draw_status text;
    frozen_at timestamptz;
    started timestamptz;
    today date := (now() AT TIME ZONE 'Africa/Johannesburg')::date;
BEGIN
    IF parent_kind = 'promotion' THEN
        the_promotion := parent_id;
    ELSIF parent_kind = 'draw' THEN
        the_draw := parent_id;
    ELSIF parent_kind = 'raps_list' THEN
        SELECT l.draw_id INTO the_draw FROM @schema@.draws_rapslist AS l WHERE l.id = parent_id;
    ELSIF parent_kind = 'letter' THEN
        SELECT l.draw_id INTO the_draw FROM @schema@.prizes_prizeletter AS l WHERE l.id = parent_id;
    ELSIF parent_kind = 'prize_line' THEN
        SELECT p.draw_id INTO the_draw FROM @schema@.prizes_prizeline AS p WHERE p.id = parent_id;
    ELSE
        RAISE EXCEPTION 'records_retention_hold: unknown parent kind %', parent_kind;
    END IF;
    IF parent_kind <> 'promotion' THEN
        SELECT s.promotion_id, d.status, d.entries_frozen_at, d.started_at
          INTO the_promotion, draw_status, frozen_at, started
          FROM @schema@.draws_draw AS d JOIN @schema@.promotions_drawseries AS s ON s.id = d.series_id
         WHERE d.id = the_draw;
    END IF;
    SELECT p.ends_on, p.status INTO ends, promotion_status FROM @schema@.promotions_promotion AS p
     WHERE p.id = the_promotion;
    IF ends IS NULL THEN
        RETURN 'infinity'::date;
    END IF;
    IF today > (ends + interval '3 years')::date THEN
        RETURN NULL;
    END IF;
    IF tbl = 'promotions_promotion' AND promotion_status = 'draft' THEN
        RETURN NULL;
    END IF;
    IF tbl = 'draws_draw' AND promotion_status = 'draft' AND draw_status = 'scheduled' AND frozen_at IS NULL
       AND NOT EXISTS (SELECT 1 FROM @schema@.draws_activation AS a WHERE a.draw_id = the_draw) THEN
        RETURN NULL;
    END IF;
    IF tbl IN ('draws_rapslist', 'draws_rapsentry') AND draw_status IN ('scheduled', 'closed') AND started IS NULL THEN
        RETURN NULL;
    END IF;
    RETURN (ends + interval '3 years')::date;
END;
$$;

CREATE OR REPLACE FUNCTION @schema@.records_retention_refuse(tbl text, kept_until date) RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, @schema@, pg_temp AS $$
BEGIN
    IF kept_until = 'infinity'::date THEN
        RAISE EXCEPTION 'a row of % whose promotion cannot be found is kept (delete its rows before their draw and promotion): DELETE refused', tbl
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RAISE EXCEPTION 'a promotion''s records are kept three years after it ended, until %: DELETE refused on %', kept_until, tbl
        USING ERRCODE = 'insufficient_privilege';
END;
$$;

CREATE OR REPLACE FUNCTION @schema@.records_retention_guard() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, @schema@, pg_temp AS $$
DECLARE
    kept_until date;
BEGIN
    -- TG_ARGV: the parent kind and the column holding its id (records/migrations/0001_retention.py).
    kept_until := @schema@.records_retention_hold(TG_TABLE_NAME, TG_ARGV[0], (to_jsonb(OLD) ->> TG_ARGV[1])::bigint);
    IF kept_until IS NOT NULL THEN
        PERFORM @schema@.records_retention_refuse(TG_TABLE_NAME, kept_until);
    END IF;
    RETURN OLD;
END;
$$;

CREATE OR REPLACE FUNCTION @schema@.records_retention_guard_rapsentry() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, @schema@, pg_temp AS $$
DECLARE
    one bigint;
    kept_until date;
BEGIN
    FOR one IN SELECT DISTINCT o.raps_list_id FROM old_rows AS o LOOP
        kept_until := @schema@.records_retention_hold(TG_TABLE_NAME, 'raps_list', one);
        IF kept_until IS NOT NULL THEN
            PERFORM @schema@.records_retention_refuse(TG_TABLE_NAME, kept_until);
        END IF;
    END LOOP;
    RETURN NULL;
END;
$$;

CREATE TRIGGER records_retention
    AFTER DELETE ON @schema@.draws_rapsentry REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION @schema@.records_retention_guard_rapsentry();
"""

TRIGGERS = "\n".join(
    f"CREATE TRIGGER records_retention BEFORE DELETE ON @schema@.{table} FOR EACH ROW "
    f"EXECUTE FUNCTION @schema@.records_retention_guard('{kind}', '{column}');"
    for table, kind, column in GUARDED
)

BACKWARD = "\n".join(
    [f"DROP TRIGGER IF EXISTS records_retention ON @schema@.{table};" for table, _, _ in GUARDED]
    + [
        "DROP TRIGGER IF EXISTS records_retention ON @schema@.draws_rapsentry;",
        "DROP FUNCTION IF EXISTS @schema@.records_retention_guard_rapsentry();",
        "DROP FUNCTION IF EXISTS @schema@.records_retention_guard();",
        "DROP FUNCTION IF EXISTS @schema@.records_retention_refuse(text, date);",
        "DROP FUNCTION IF EXISTS @schema@.records_retention_hold(text, text, bigint);",
    ]
)


class Migration(migrations.Migration):
    dependencies = [
        ("records", "0001_record_pack"),
        ("core", "0004_sign_in_throttle"),
        ("promotions", "0004_collection_rules"),
        ("draws", "0016_winners_wanted_raised"),
        ("proxies", "0001_initial"),
        ("prizes", "0009_letter_render_queued_at"),
    ]

    operations = [postgresql_only(FUNCTIONS + TRIGGERS, BACKWARD, in_schema=True)]
