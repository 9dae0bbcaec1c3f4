"""Three years (issue 16, part 7): a promotion's draws, entries, picks, registers, prize lines,
letters and payouts are kept until three years after the promotion ended.

PostgreSQL refuses the deletion itself (records/migrations/0001_retention.py, whoever asks);
this module asks the database the same question first (records_retention_hold) so that an ORM
delete is refused in words, as a DomainError, before the database refuses it. SQLite (`make
run`'s zero-setup demo database) has no triggers and keeps nothing: there, nothing is refused.
"""

import datetime as dt

from django.db import connections, router
from django.db.models.signals import pre_delete

from core.errors import DomainError
from core.formats import local_date
from draws.models import Activation, Draw, DrawPick, RapsList
from prizes.letter_models import LetterLine, Payout, PrizeLetter
from prizes.models import GamePlay, PrizeLine, ProgressiveEntry, WildCardBin
from promotions.models import Promotion
from proxies.models import DeclineRegistration, ProxyNomination

YEARS = 3

# model -> (parent kind, attribute holding the parent's id), as the migration's GUARDED.
# RapsEntry is left to the database: a replaced list's 100,000 entries are deleted in one fast
# statement, which a pre_delete receiver would turn into 100,000 loaded rows.
PARENTS = {
    Promotion: ("promotion", "pk"),
    Draw: ("draw", "pk"),
    Activation: ("draw", "draw_id"),
    DrawPick: ("draw", "draw_id"),
    RapsList: ("draw", "draw_id"),
    ProxyNomination: ("draw", "draw_id"),
    DeclineRegistration: ("draw", "draw_id"),
    PrizeLine: ("draw", "draw_id"),
    PrizeLetter: ("draw", "draw_id"),
    LetterLine: ("letter", "letter_id"),
    Payout: ("prize_line", "prize_line_id"),
    ProgressiveEntry: ("draw", "draw_id"),
    GamePlay: ("draw", "draw_id"),
    WildCardBin: ("draw", "draw_id"),
}

WHAT = {
    Promotion: "promotion",
    Draw: "draw",
    Activation: "entry",
    DrawPick: "pick",
    RapsList: "active-player list",
    ProxyNomination: "proxy nomination",
    DeclineRegistration: "decline",
    PrizeLine: "prize line",
    PrizeLetter: "prize letter",
    LetterLine: "line of a prize letter",
    Payout: "payout",
    ProgressiveEntry: "jackpot entry",
    GamePlay: "stage game",
    WildCardBin: "wild card bin",
}


def kept_until(obj) -> dt.date | None:
    """The last day (Johannesburg, the database's clock) `obj` is kept, or None if it may be
    deleted now. dt.date.max: its promotion cannot be found."""
    kind, attribute = PARENTS[type(obj)]
    connection = connections[router.db_for_write(type(obj), instance=obj)]
    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        # psycopg cannot read an infinite date: it is asked for as a flag.
        cursor.execute(
            "SELECT h = 'infinity'::date, CASE WHEN h <> 'infinity'::date THEN h END "
            "FROM records_retention_hold(%s, %s, %s) AS h",
            [type(obj)._meta.db_table, kind, getattr(obj, attribute)],
        )
        lost, until = cursor.fetchone()
    return dt.date.max if lost else until


def delete_refusal(obj) -> str | None:
    """Why `obj` cannot be deleted now, in words, or None."""
    until = kept_until(obj)
    if until is None:
        return None
    what = WHAT[type(obj)]
    if until == dt.date.max:
        return f"This {what} belongs to a promotion that cannot be found, so it is kept: nothing is deleted."
    first_day = local_date(until + dt.timedelta(days=1))
    return (
        f"This {what} is part of a promotion's records, which are kept for three years after the promotion "
        f"ends (Consumer Protection Act, section 36): it cannot be deleted before {first_day}."
    )


def _refuse_early_delete(sender, instance, **kwargs) -> None:
    refusal = delete_refusal(instance)
    if refusal:
        raise DomainError(refusal, code="kept_three_years")


def connect() -> None:
    """From RecordsConfig.ready(): every ORM delete of a kept row is refused in words first."""
    for model in PARENTS:
        pre_delete.connect(_refuse_early_delete, sender=model, dispatch_uid=f"records.retention.{model.__name__}")
