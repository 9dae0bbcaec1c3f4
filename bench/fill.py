"""Fill a PostgreSQL database with a million members and ten million points rows, quickly.

    .venv/bin/python bench/fill.py --members 1000000 --points 10000000 \\
        [--database-url postgres://postgres@127.0.0.1:5432/promodesk_bench] [--reset]

Creates the database if it is missing, migrates it, loads the properties and tiers of
members.demo, then generates the rows inside PostgreSQL (INSERT ... SELECT over
generate_series, `--method sql`, the default) or in Python streamed through COPY
(`--method copy`). Secondary indexes, unique and foreign-key constraints of the two tables are
dropped for the load and rebuilt afterwards (their definitions are kept in the table
bench_fill_pending_ddl until rebuilt, so an interrupted fill is finished by the next run), then
VACUUM ANALYZE. Without --reset a database already filled to the requested sizes is left alone.

Members get unique card numbers (9-digit serial + Luhn digit, as members.cards issues them),
valid South African ID numbers (real YYMMDD birth date, Luhn check digit; every 40th member
holds a passport instead), search_name = lower(first_name || ' ' || last_name), names drawn with
a Zipf-like spread from 215 first names and 538 surnames (bench_names.py), one member in ten
carrying one of 3,700 rare made-up surnames, and tiers weighted as in members.demo. Points rows are spread over the last
90 days, 1..500 points each (small amounts commonest), 80% at the member's home property.
"""

import argparse
import datetime as dt
import math
import os
import random
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import psycopg
from bench_names import FIRST_NAMES, SURNAMES, tail_surnames, zipf_weights
from drawbench import migrate, setup_django
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/promodesk_bench"
MEMBERS = "members_member"
POINTS = "members_pointsentry"
PENDING = "bench_fill_pending_ddl"

SEED = 2026
FIRST_SLOTS = 10_000  # resolution of the weighted draws (a name with weight w fills w * slots entries)
SURNAME_SLOTS = 100_000
TAIL_SURNAMES = 3_700
TAIL_SHARE = 0.10  # members carrying one of the rare made-up surnames
PASSPORT_EVERY = 40  # members with id % 40 == 3 hold a passport, as in members.demo
POINTS_DAYS = 90
HOME_SHARE = 0.8  # points earned at the member's home property
MEMBERS_CHUNK = 250_000
POINTS_CHUNK = 1_000_000
COPY_BATCH = 20_000

SESSION_SETTINGS = {
    "synchronous_commit": "off",
    "maintenance_work_mem": "1GB",
    "work_mem": "64MB",
}

MEMBER_COLUMNS = [
    "id",
    "card_number",
    "first_name",
    "last_name",
    "search_name",
    "id_type",
    "id_number",
    "date_of_birth",
    "phone",
    "email",
    "tier_id",
    "home_property_id",
    "app_registered_on",
    "playtsogo_active_since",
    "playing_now",
    "playing_updated_at",
    "created_at",
]
POINTS_COLUMNS = ["member_id", "property_id", "earned_at", "points", "reference", "import_job_id"]

_DOUBLED = [0, 2, 4, 6, 8, 1, 3, 5, 7, 9]


def _luhn_sql() -> str:
    """pg_temp.luhn_digit(body bigint): the Luhn check digit of a body of up to 12 digits (leading
    zeros count as digits and add nothing), unrolled into integer arithmetic: about 20 times
    faster than looping over the characters of a string."""
    terms = []
    for position in range(1, 13):  # from the right; the rightmost digit of the body is doubled
        digit = f"((body / {10 ** (position - 1)}) % 10)"
        terms.append(f"(2 * {digit} - 9 * ({digit} / 5))" if position % 2 else digit)
    return (
        "CREATE FUNCTION pg_temp.luhn_digit(body bigint) RETURNS int LANGUAGE sql IMMUTABLE PARALLEL SAFE"
        f" AS $$ SELECT (10 - ({' + '.join(terms)}) % 10) % 10 $$"
    )


LUHN_SQL = _luhn_sql()

MEMBERS_SQL = """
INSERT INTO members_member ({columns})
SELECT g.id,
       (%(first_serial)s + g.id - 1)::text || pg_temp.luhn_digit(%(first_serial)s + g.id - 1),
       f.name,
       l.name,
       lower(f.name || ' ' || l.name),
       CASE WHEN g.id %% %(passport_every)s = 3 THEN 'passport' ELSE 'sa_id' END,
       CASE WHEN g.id %% %(passport_every)s = 3 THEN 'P' || (10000000 + g.id)::text
            ELSE lpad(g.id_body::text, 12, '0') || pg_temp.luhn_digit(g.id_body) END,
       %(youngest)s::date - g.day_no,
       '+27 8' || (10000000 + floor(random() * 90000000)::int)::text,
       lower(replace(f.name || '.' || l.name, ' ', '')) || g.id::text || '@example.co.za',
       (%(tier_slots)s::bigint[])[1 + floor(random() * 100)::int],
       (%(home_slots)s::bigint[])[1 + (g.id * 61) %% 100],
       CASE WHEN random() < 0.4 THEN current_date - (1 + floor(random() * 900)::int) END,
       CASE WHEN random() < 0.2 THEN current_date - (1 + floor(random() * 400)::int) END,
       false,
       NULL,
       %(created_from)s::timestamptz + (g.id - 1) * %(created_step)s * interval '1 second'
FROM (
    SELECT d.*,
           -- YYMMDD, 4-digit sequence, citizenship 0, 8: the 12 digits before the check digit
           to_char(%(youngest)s::date - d.day_no, 'YYMMDD')::bigint * 1000000
           + ((d.k * 7919 + d.day_no * 37) %% 10000) * 100 + 8 AS id_body
    FROM (
        SELECT id,
               ((((id - 1) %% %(days)s) * %(mult)s) %% %(days)s)::int AS day_no,
               (id - 1) / %(days)s AS k,
               floor(random() * %(first_slots)s)::int AS first_slot,
               floor(random() * %(last_slots)s)::int AS last_slot
        FROM generate_series(%(lo)s::bigint, %(hi)s::bigint) AS id
    ) AS d
    OFFSET 0  -- keep id_body a computed column: luhn_digit() inlines it 24 times
) AS g
JOIN pg_temp.bench_first_slot AS f ON f.slot = g.first_slot
JOIN pg_temp.bench_last_slot AS l ON l.slot = g.last_slot
"""

POINTS_SQL = """
INSERT INTO members_pointsentry ({columns})
SELECT g.member_id,
       CASE WHEN random() < %(home_share)s THEN (%(home_slots)s::bigint[])[1 + (g.member_id * 61) %% 100]
            ELSE (%(home_slots)s::bigint[])[1 + floor(random() * 100)::int] END,
       %(now)s::timestamptz - random() * interval '{days} days',
       1 + floor(500 * power(random(), 2))::int,
       'CMS-' || g.id::text,
       NULL
FROM (
    SELECT id, %(member_lo)s + floor(%(member_count)s * power(random(), 1.6))::bigint AS member_id
    FROM generate_series(%(lo)s::bigint, %(hi)s::bigint) AS id
) AS g
"""


# --- small helpers ------------------------------------------------------------------------------


def luhn_append(body: str) -> str:
    total = 0
    for position, char in enumerate(reversed(body)):
        digit = ord(char) - 48
        total += _DOUBLED[digit] if position % 2 == 0 else digit
    return body + str((10 - total % 10) % 10)


def slots(names: list[str], weights: list[float], size: int) -> list[str]:
    """Expand weighted names to a list where each name fills about weight/total * size entries."""
    total = sum(weights)
    return [
        name for name, weight in zip(names, weights, strict=True) for _ in range(max(1, round(weight / total * size)))
    ]


def weighted_ids(ids: list[int], weights: list[int], size: int = 100) -> list[int]:
    expanded = [pk for pk, weight in zip(ids, weights, strict=True) for _ in range(weight)]
    return [expanded[i * len(expanded) // size] for i in range(size)]


def coprime_at_least(start: int, modulus: int) -> int:
    value = start
    while math.gcd(value, modulus) != 1:
        value += 1
    return value


def years_before(day: dt.date, years: int) -> dt.date:
    try:
        return day.replace(year=day.year - years)
    except ValueError:  # 29 February
        return day.replace(year=day.year - years, day=28)


def rate(rows: int, seconds: float) -> str:
    return f"{rows / seconds:,.0f} rows/s" if seconds > 0 and rows else ""


@contextmanager
def phase(name: str, rows: int = 0) -> Iterator[None]:
    print(f"-- {name} ...", flush=True)
    started = time.perf_counter()
    yield
    elapsed = time.perf_counter() - started
    extra = f"  {rows:,} rows, {rate(rows, elapsed)}" if rows else ""
    print(f"   {name}: {elapsed:.1f} s{extra}", flush=True)
    TIMINGS.append((name, elapsed, rows))


TIMINGS: list[tuple[str, float, int]] = []


class Db:
    def __init__(self, url: str):
        self.url = url
        params = conninfo_to_dict(url)
        self.name = params.get("dbname") or "postgres"
        self.admin_conninfo = make_conninfo(url, dbname="postgres")

    def connect(self, *, autocommit: bool = True) -> psycopg.Connection:
        conn = psycopg.connect(self.url, autocommit=autocommit)
        for name, value in SESSION_SETTINGS.items():
            conn.execute(sql.SQL("SELECT set_config({}, {}, false)").format(sql.Literal(name), sql.Literal(value)))
        return conn

    def scalar(self, query: str, params: dict | tuple | None = None):
        with psycopg.connect(self.url, autocommit=True) as conn:
            row = conn.execute(query, params).fetchone()
            return row[0] if row else None


# --- database, schema, reference data -----------------------------------------------------------


def create_database(db: Db) -> None:
    with psycopg.connect(db.admin_conninfo, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (db.name,)).fetchone()
        if exists:
            print(f"   database {db.name} exists")
            return
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(db.name)))
        print(f"   created database {db.name}")


def reference_data() -> dict:
    """Properties and tiers through members.demo; returns the ids and weights the fill needs."""
    from django.db import connections

    from members.cards import FIRST_SERIAL
    from members.demo import TIER_WEIGHTS, ensure_reference_data

    properties, tiers = ensure_reference_data()
    connections.close_all()
    return {
        "first_serial": FIRST_SERIAL,
        "tier_slots": weighted_ids([t.pk for t in tiers], TIER_WEIGHTS),
        "home_slots": weighted_ids([p.pk for p in properties], [1] * len(properties)),
    }


# --- keeping and rebuilding the secondary indexes and constraints -------------------------------


REFS_TRIGGER = "members_points_refs_insert"  # members migration 0010


def pending_ddl(db: Db) -> list[tuple[int, str, str, str, str]]:
    with db.connect() as conn:
        conn.execute(
            f"CREATE TABLE IF NOT EXISTS {PENDING} (seq serial PRIMARY KEY, tbl text NOT NULL, kind text NOT NULL,"
            " name text NOT NULL, create_sql text NOT NULL)"
        )
        return conn.execute(f"SELECT seq, tbl, kind, name, create_sql FROM {PENDING} ORDER BY seq").fetchall()


def drop_secondary(db: Db, tables: list[str]) -> None:
    """Save the definitions of the tables' secondary indexes, unique and foreign-key constraints,
    then drop them, in one transaction."""
    with db.connect(autocommit=False) as conn, conn.transaction():
        saved = {name for (name,) in conn.execute(f"SELECT name FROM {PENDING}")}
        for table in tables:
            constraints = conn.execute(
                # The ledger's primary key too: it is its unique reference (members migration 0019),
                # and no foreign key points at it.
                "SELECT conname, contype, pg_get_constraintdef(oid) FROM pg_constraint"
                " WHERE conrelid = %s::regclass AND (contype IN ('f', 'u') OR (contype = 'p' AND %s))"
                " ORDER BY contype DESC, conname",
                (table, table == POINTS),
            ).fetchall()
            indexes = conn.execute(
                "SELECT i.relname, pg_get_indexdef(x.indexrelid)"
                " FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid"
                " WHERE x.indrelid = %s::regclass AND NOT x.indisprimary AND NOT EXISTS ("
                "  SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid AND c.conrelid = x.indrelid)"
                " ORDER BY i.relname",
                (table,),
            ).fetchall()
            # Foreign keys first: they are rebuilt last, after the unique indexes they may need.
            for name, contype, definition in constraints:
                kind = "foreign_key" if contype == "f" else "unique"
                create = (
                    sql.SQL("ALTER TABLE {} ADD CONSTRAINT {} ")
                    .format(sql.Identifier(table), sql.Identifier(name))
                    .as_string(conn)
                    + definition
                )
                if name not in saved:
                    conn.execute(
                        f"INSERT INTO {PENDING} (tbl, kind, name, create_sql) VALUES (%s, %s, %s, %s)",
                        (table, kind, name, create),
                    )
                conn.execute(
                    sql.SQL("ALTER TABLE {} DROP CONSTRAINT {}").format(sql.Identifier(table), sql.Identifier(name))
                )
            for name, definition in indexes:
                # A partitioned table's index reads "ON ONLY table": built so, it would cover no partition.
                definition = definition.replace(" ON ONLY ", " ON ", 1)
                if name not in saved:
                    conn.execute(
                        f"INSERT INTO {PENDING} (tbl, kind, name, create_sql) VALUES (%s, 'index', %s, %s)",
                        (table, name, definition),
                    )
                conn.execute(sql.SQL("DROP INDEX {}").format(sql.Identifier(name)))
            print(f"   {table}: dropped {len(constraints)} constraints and {len(indexes)} indexes for the load")


def rebuild_one(db: Db, seq: int, table: str, kind: str, name: str, create_sql: str) -> None:
    started = time.perf_counter()
    with db.connect(autocommit=False) as conn, conn.transaction():
        conn.execute(create_sql)
        conn.execute(f"DELETE FROM {PENDING} WHERE seq = %s", (seq,))
    print(f"   {kind:<11} {name} on {table}: {time.perf_counter() - started:.1f} s", flush=True)


def rebuild_secondary(db: Db, jobs: int) -> None:
    pending = pending_ddl(db)

    # Biggest first so that the two workers finish together: the trigram GIN index and the
    # points indexes dominate.
    def cost(item: tuple[int, str, str, str, str]) -> int:
        _, table, _, _, create_sql = item
        return (2 if table == POINTS else 1) * (3 if "gin" in create_sql.lower() else 1)

    indexes = sorted((p for p in pending if p[2] != "foreign_key"), key=cost, reverse=True)
    foreign_keys = [p for p in pending if p[2] == "foreign_key"]
    with phase("rebuild indexes and unique constraints"):
        run_parallel(jobs, [lambda item=item: rebuild_one(db, *item) for item in indexes])
    with phase("re-add and validate foreign keys"):
        run_parallel(jobs, [lambda item=item: rebuild_one(db, *item) for item in foreign_keys])


def points_months(db: Db, plan: "Plan") -> None:
    """Each month of the points to load a partition of the ledger (members migration 0018): a
    row of a month not made yet would go to the default partition."""
    with db.connect() as conn:
        if conn.execute("SELECT to_regproc('members_points_month')").fetchone()[0] is None:
            return  # an older schema, not partitioned
        conn.execute(
            f"SELECT members_points_month(m) FROM generate_series(%(now)s::timestamptz - interval '{POINTS_DAYS} days',"
            " %(now)s::timestamptz + interval '1 month', interval '1 month') AS m",
            {"now": plan.now},
        )
        conn.execute("SELECT members_points_month(%(now)s::timestamptz)", {"now": plan.now})


def points_refs_trigger(db: Db, *, enable: bool) -> bool:
    """Disable the ledger's reference check for the load, or check every row and enable it again
    (as re-adding a foreign key validates it). False if the schema has no such trigger."""
    with db.connect(autocommit=False) as conn, conn.transaction():
        if not conn.execute("SELECT 1 FROM pg_trigger WHERE tgname = %s", (REFS_TRIGGER,)).fetchone():
            return False
        if enable:
            orphans = conn.execute(
                f"SELECT count(*) FROM {POINTS} p WHERE NOT EXISTS (SELECT FROM {MEMBERS} m WHERE m.id = p.member_id)"
                " OR NOT EXISTS (SELECT FROM members_property r WHERE r.id = p.property_id)"
            ).fetchone()[0]
            if orphans:
                raise SystemExit(f"{orphans:,} points rows name no member or property")
        action = "ENABLE" if enable else "DISABLE"
        conn.execute(f"ALTER TABLE {POINTS} {action} TRIGGER {REFS_TRIGGER}")
    return True


def run_parallel(jobs: int, tasks: list[Callable[[], None]]) -> None:
    if not tasks:
        return
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        for future in [pool.submit(task) for task in tasks]:
            future.result()


# --- generating members --------------------------------------------------------------------------


class Plan:
    """Everything that decides what the generated rows look like, shared by both methods."""

    def __init__(self, members: int, points: int, ref: dict, seed: int):
        self.members = members
        self.points = points
        self.seed = seed
        self.first_serial = ref["first_serial"]
        self.tier_slots = ref["tier_slots"]
        self.home_slots = ref["home_slots"]
        self.today = dt.date.today()
        self.now = dt.datetime.now(dt.UTC).replace(microsecond=0)
        # Adults of 18 to 85: every member id maps to its own (birth day, sequence) pair, so the
        # SA ID numbers are unique without a lookup: day = (i mod D) * mult mod D, sequence from
        # i div D scrambled by a multiplier coprime with 10,000.
        self.youngest = years_before(self.today, 18) - dt.timedelta(days=1)
        self.days = (self.youngest - years_before(self.today, 85)).days
        self.mult = coprime_at_least(7919, self.days)
        if members > self.days * 10_000:
            raise SystemExit("Too many members for unique SA ID numbers")
        self.created_from = self.now - dt.timedelta(days=8 * 365)
        self.created_step = 8 * 365 * 86400 / max(members, 1)
        self.first_slots = slots(FIRST_NAMES, zipf_weights(len(FIRST_NAMES), offset=10, exponent=0.9), FIRST_SLOTS)
        tail = tail_surnames(TAIL_SURNAMES, seed)
        main_weights = zipf_weights(len(SURNAMES), offset=5, exponent=0.85)
        scale = (1 - TAIL_SHARE) / sum(main_weights)
        self.last_slots = slots(
            SURNAMES + tail,
            [w * scale for w in main_weights] + [TAIL_SHARE / len(tail)] * len(tail),
            SURNAME_SLOTS,
        )

    def session_seed(self, table: str, lo: int) -> float:
        """A different setseed() value for each chunk, the same on every run."""
        return random.Random(f"{self.seed}-{table}-{lo}").uniform(-1, 1)

    def chunks(self, total: int, size: int) -> list[tuple[int, int]]:
        return [(lo, min(lo + size - 1, total)) for lo in range(1, total + 1, size)]

    def birth(self, member_id: int) -> tuple[dt.date, int]:
        i = member_id - 1
        day_no = ((i % self.days) * self.mult) % self.days
        return self.youngest - dt.timedelta(days=day_no), (i // self.days * 7919 + day_no * 37) % 10_000

    def member_params(self, lo: int, hi: int) -> dict:
        return {
            "lo": lo,
            "hi": hi,
            "first_serial": self.first_serial,
            "passport_every": PASSPORT_EVERY,
            "youngest": self.youngest,
            "days": self.days,
            "mult": self.mult,
            "tier_slots": self.tier_slots,
            "home_slots": self.home_slots,
            "first_slots": len(self.first_slots),
            "last_slots": len(self.last_slots),
            "created_from": self.created_from,
            "created_step": self.created_step,
        }


def load_members_sql(db: Db, plan: Plan, lo: int, hi: int) -> None:
    with db.connect() as conn:
        conn.execute(LUHN_SQL)
        for table, names in (("bench_first_slot", plan.first_slots), ("bench_last_slot", plan.last_slots)):
            conn.execute(f"CREATE TEMP TABLE {table} (slot int PRIMARY KEY, name text NOT NULL)")
            with conn.cursor().copy(f"COPY {table} (slot, name) FROM STDIN") as copy:
                for slot, name in enumerate(names):
                    copy.write_row((slot, name))
            conn.execute(f"ANALYZE {table}")
        conn.execute("SELECT setseed(%s)", (plan.session_seed("members", lo),))
        conn.execute(MEMBERS_SQL.format(columns=", ".join(MEMBER_COLUMNS)), plan.member_params(lo, hi))


def load_members_copy(db: Db, plan: Plan, lo: int, hi: int) -> None:
    rng = random.Random(plan.seed * 1_000_003 + lo)
    rand = rng.random
    first_slots, last_slots = plan.first_slots, plan.last_slots
    n_first, n_last = len(first_slots), len(last_slots)
    tier_slots, home_slots = plan.tier_slots, plan.home_slots
    today = plan.today
    columns = ", ".join(MEMBER_COLUMNS)
    with db.connect() as conn, conn.cursor().copy(f"COPY members_member ({columns}) FROM STDIN") as copy:
        lines = []
        for member_id in range(lo, hi + 1):
            first = first_slots[int(rand() * n_first)]
            last = last_slots[int(rand() * n_last)]
            card = luhn_append(f"{plan.first_serial + member_id - 1:09d}")
            born, sequence = plan.birth(member_id)
            if member_id % PASSPORT_EVERY == 3:
                id_type, id_number = "passport", f"P{10_000_000 + member_id}"
            else:
                id_type, id_number = "sa_id", luhn_append(f"{born:%y%m%d}{sequence:04d}08")
            registered = (today - dt.timedelta(days=1 + int(rand() * 900))).isoformat() if rand() < 0.4 else r"\N"
            created = plan.created_from + dt.timedelta(seconds=(member_id - 1) * plan.created_step)
            email = f"{first}.{last}".lower().replace(" ", "") + f"{member_id}@example.co.za"
            lines.append(
                f"{member_id}\t{card}\t{first}\t{last}\t{first.lower()} {last.lower()}\t{id_type}\t{id_number}\t"
                f"{born.isoformat()}\t+27 8{10_000_000 + int(rand() * 90_000_000)}\t{email}\t"
                f"{tier_slots[int(rand() * 100)]}\t{home_slots[member_id * 61 % 100]}\t{registered}\t"
                f"{'t' if rand() < 0.2 else 'f'}\tf\t\\N\t{created.isoformat()}\n"
            )
            if len(lines) >= COPY_BATCH:
                copy.write("".join(lines))
                lines.clear()
        copy.write("".join(lines))


# --- generating points ---------------------------------------------------------------------------


def points_params(plan: Plan, member_lo: int, lo: int, hi: int) -> dict:
    return {
        "lo": lo,
        "hi": hi,
        "home_share": HOME_SHARE,
        "home_slots": plan.home_slots,
        "now": plan.now,
        "member_lo": member_lo,
        "member_count": plan.members,
    }


def load_points_sql(db: Db, plan: Plan, member_lo: int, lo: int, hi: int) -> None:
    with db.connect() as conn:
        conn.execute("SELECT setseed(%s)", (plan.session_seed("points", lo),))
        conn.execute(
            POINTS_SQL.format(columns=", ".join(POINTS_COLUMNS), days=POINTS_DAYS),
            points_params(plan, member_lo, lo, hi),
        )


def load_points_copy(db: Db, plan: Plan, member_lo: int, lo: int, hi: int) -> None:
    rng = random.Random(plan.seed * 2_000_003 + lo)
    rand = rng.random
    home_slots = plan.home_slots
    count = plan.members
    start = plan.now - dt.timedelta(days=POINTS_DAYS)
    minutes = POINTS_DAYS * 24 * 60
    minute_text = [(start + dt.timedelta(minutes=m)).strftime("%Y-%m-%d %H:%M:") for m in range(minutes)]
    second_text = [f"{s:02d}+00" for s in range(60)]
    columns = ", ".join(POINTS_COLUMNS)
    with db.connect() as conn, conn.cursor().copy(f"COPY members_pointsentry ({columns}) FROM STDIN") as copy:
        lines = []
        for entry_id in range(lo, hi + 1):
            member_id = member_lo + int(count * rand() ** 1.6)
            prop = home_slots[member_id * 61 % 100] if rand() < HOME_SHARE else home_slots[int(rand() * 100)]
            earned = minute_text[int(rand() * minutes)] + second_text[int(rand() * 60)]
            lines.append(f"{member_id}\t{prop}\t{earned}\t{1 + int(500 * rand() ** 2)}\tCMS-{entry_id}\t\\N\n")
            if len(lines) >= COPY_BATCH:
                copy.write("".join(lines))
                lines.clear()
        copy.write("".join(lines))


# --- checks and bookkeeping ----------------------------------------------------------------------


def verify(db: Db, plan: Plan) -> None:
    from django.core.exceptions import ValidationError
    from stdnum import luhn

    from members.identity import IdType, validate_identity

    with db.connect() as conn:
        bad_names = conn.execute(
            "SELECT count(*) FROM members_member WHERE search_name <> lower(first_name || ' ' || last_name)"
        ).fetchone()[0]
        sample = conn.execute(
            "SELECT card_number, id_type, id_number, date_of_birth FROM members_member TABLESAMPLE SYSTEM (1)"
            " REPEATABLE (7) LIMIT 5000"
        ).fetchall()
        stats = conn.execute(
            "SELECT count(DISTINCT first_name), count(DISTINCT last_name), count(DISTINCT search_name),"
            " count(*) FILTER (WHERE id_type = 'sa_id') FROM members_member"
        ).fetchone()
    bad = 0
    for card, id_type, id_number, born in sample:
        try:
            luhn.validate(card)
            if id_type == IdType.SA_ID:
                validate_identity(id_type, id_number, born)
        except (ValidationError, luhn.ValidationError):
            bad += 1
    print(
        f"   {stats[0]} first names, {stats[1]} surnames, {stats[2]:,} distinct full names, {stats[3]:,} SA IDs;"
        f" search_name mismatches: {bad_names}; invalid cards/IDs in a sample of {len(sample)}: {bad}"
    )
    if bad or bad_names:
        raise SystemExit("The generated members fail the checks above")


def finish(db: Db, plan: Plan) -> None:
    with db.connect() as conn:
        # The ledger has no id (members migration 0019): its key is the casino's reference.
        conn.execute(
            f"SELECT setval(pg_get_serial_sequence('{MEMBERS}', 'id'), GREATEST((SELECT max(id) FROM {MEMBERS}), 1))"
        )
        # The desk issues new cards after the generated ones.
        last_serial = conn.execute("SELECT max(substr(card_number, 1, 9)::bigint) FROM members_member").fetchone()[0]
        if last_serial:
            conn.execute(
                "INSERT INTO members_cardnumbercounter (id, last_serial) VALUES (1, %s)"
                " ON CONFLICT (id) DO UPDATE SET last_serial = GREATEST(members_cardnumbercounter.last_serial,"
                " EXCLUDED.last_serial)",
                (last_serial,),
            )


def vacuum_analyze(db: Db, tables: list[str], jobs: int) -> None:
    def run(table: str) -> None:
        started = time.perf_counter()
        with db.connect() as conn:
            conn.execute(sql.SQL("VACUUM (ANALYZE) {}").format(sql.Identifier(table)))
        print(f"   VACUUM ANALYZE {table}: {time.perf_counter() - started:.1f} s", flush=True)

    run_parallel(jobs, [lambda table=table: run(table) for table in tables])


def table_sizes(db: Db) -> str:
    with db.connect() as conn:
        rows = conn.execute(
            # A partitioned table's sizes are its partitions' (pg_partition_tree; none for a plain table).
            "SELECT c.relname, pg_size_pretty(sum(pg_table_size(r))), pg_size_pretty(sum(pg_indexes_size(r)))"
            " FROM pg_class c LEFT JOIN LATERAL pg_partition_tree(c.oid) t ON true,"
            " LATERAL coalesce(t.relid, c.oid) AS r WHERE c.relname IN (%s, %s) GROUP BY c.relname ORDER BY 1",
            (MEMBERS, POINTS),
        ).fetchall()
    return "; ".join(f"{name}: table {table}, indexes {indexes}" for name, table, indexes in rows)


# --- main ------------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--members", type=int, default=1_000_000)
    parser.add_argument("--points", type=int, default=10_000_000)
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_URL))
    parser.add_argument("--reset", action="store_true", help="empty the members and points tables first")
    parser.add_argument(
        "--method",
        choices=["sql", "copy"],
        default="sql",
        help="sql: INSERT ... SELECT generate_series inside PostgreSQL (default, faster here);"
        " copy: rows generated in Python and streamed with COPY",
    )
    parser.add_argument("--jobs", type=int, default=2, help="parallel database sessions (default 2)")
    parser.add_argument(
        "--keep-indexes",
        action="store_true",
        help="load with every index and constraint in place (for comparison: slower)",
    )
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args()
    if args.members < 1 or args.points < 0:
        parser.error("--members must be at least 1 and --points at least 0")

    db = Db(args.database_url)
    overall = time.perf_counter()
    print(f"Filling {db.name}: {args.members:,} members, {args.points:,} points rows (method {args.method})")
    with phase("create database"):
        create_database(db)
    with phase("migrate"):
        migrate(db.url)
    with phase("properties and tiers"):
        setup_django(db.url)
        ref = reference_data()
    plan = Plan(args.members, args.points, ref, args.seed)

    pending = pending_ddl(db)
    members_now = db.scalar(f"SELECT count(*) FROM {MEMBERS}")
    points_now = db.scalar(f"SELECT count(*) FROM {POINTS}")
    print(f"   now: {members_now:,} members, {points_now:,} points rows")
    if pending and not args.reset:
        print("   an earlier fill was interrupted before its indexes were rebuilt: starting again as with --reset")
    if args.reset or pending:
        with phase("truncate"), db.connect() as conn:
            conn.execute(f"TRUNCATE {MEMBERS}, {POINTS} RESTART IDENTITY CASCADE")
        members_now = points_now = 0
    elif (members_now, points_now) == (args.members, args.points):
        print(f"Already filled to the requested sizes; nothing to do (use --reset to refill). {table_sizes(db)}")
        return
    for label, now, wanted in (("members", members_now, args.members), ("points rows", points_now, args.points)):
        if now not in (0, wanted):
            raise SystemExit(f"{db.name} holds {now:,} {label}, not {wanted:,}: run again with --reset")

    fill_members = members_now == 0
    fill_points = points_now == 0 and args.points > 0
    member_lo = 1
    if not fill_members:
        with db.connect() as conn:
            member_lo, member_hi = conn.execute(f"SELECT min(id), max(id) FROM {MEMBERS}").fetchone()
        if member_hi - member_lo + 1 != args.members:
            raise SystemExit(f"The member ids of {db.name} are not contiguous: run again with --reset")

    tables = [t for t, wanted in ((MEMBERS, fill_members), (POINTS, fill_points)) if wanted]
    if not args.keep_indexes:
        with phase("drop secondary indexes and constraints"):
            drop_secondary(db, tables)

    load_members = load_members_sql if args.method == "sql" else load_members_copy
    load_points = load_points_sql if args.method == "sql" else load_points_copy
    tasks: list[Callable[[], None]] = []

    def chunk_task(label: str, load: Callable[[int, int], None], lo: int, hi: int) -> Callable[[], None]:
        def run() -> None:
            started = time.perf_counter()
            load(lo, hi)
            elapsed = time.perf_counter() - started
            print(f"   {label} {lo:,}-{hi:,}: {elapsed:.1f} s, {rate(hi - lo + 1, elapsed)}", flush=True)

        return run

    if fill_members:
        for lo, hi in plan.chunks(args.members, MEMBERS_CHUNK):
            tasks.append(chunk_task("members", lambda lo, hi: load_members(db, plan, lo, hi), lo, hi))
    if fill_points:
        for lo, hi in plan.chunks(args.points, POINTS_CHUNK):
            tasks.append(chunk_task("points", lambda lo, hi: load_points(db, plan, member_lo, lo, hi), lo, hi))
    loaded = (args.members if fill_members else 0) + (args.points if fill_points else 0)
    indexes = "indexes kept" if args.keep_indexes else "indexes dropped"
    # The ledger's statement-level reference check (members migration 0010) would see members
    # that another session has not committed yet: off for the load, then one check of all.
    refs_check = fill_points and points_refs_trigger(db, enable=False)
    if fill_points:
        points_months(db, plan)
    with phase(f"load ({args.method}, {args.jobs} sessions, {indexes})", loaded):
        run_parallel(args.jobs, tasks)

    rebuild_secondary(db, args.jobs)
    if refs_check:
        with phase("check points references, re-enable trigger"):
            points_refs_trigger(db, enable=True)
    with phase("VACUUM ANALYZE"):
        # Autovacuum may be off (it is on the machine this was written on): statistics for the
        # small tables too, or the planner guesses hundreds of tiers and properties.
        vacuum_analyze(db, [POINTS, MEMBERS, "members_tier", "members_property"], args.jobs)
    with phase("verify"):
        verify(db, plan)
        finish(db, plan)

    total = time.perf_counter() - overall
    print(f"Done in {total:.1f} s ({total / 60:.1f} min). {table_sizes(db)}")
    load = os.getloadavg()
    print(f"Load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} (1 / 5 / 15 min) on {os.cpu_count()} CPUs")
    print("Phase summary:")
    for name, elapsed, rows in TIMINGS:
        print(f"  {name:<45} {elapsed:8.1f} s  {rate(rows, elapsed)}")


if __name__ == "__main__":
    main()
