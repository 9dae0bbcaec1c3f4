"""Three years (issue 16, part 7): nothing deletes a promotion's draws, entries, picks, registers,
prize lines, letters or payouts until three years after it ended (records/migrations/0001_retention.py).

Deletes are made AS THE APPLICATION'S DATABASE ROLE (SET LOCAL ROLE in a savepoint, as
core/tests/test_audit_role.py). PostgreSQL's clock is not moved by time_machine, so each test
sets the promotion's ends_on from the database's own Johannesburg date. Most of these tables have
guards of their own too (a drawn draw, a pick, a prize line are never deleted at all): to show
this migration's trigger alone, `only_retention` switches the tables' other user triggers off
(as the suite's superuser, before becoming the application) for the savepoint's length.
"""

import datetime as dt
import uuid
from contextlib import contextmanager

import pytest
import time_machine
from django.conf import settings
from django.contrib.admin.sites import site
from django.db import DatabaseError, connection, transaction
from django.urls import reverse

from conftest import make_user, reference_rows
from core.errors import DomainError
from core.tests.test_audit_role import as_app_role
from draws.models import Activation, Draw, DrawPick, RapsEntry, RapsList
from members.models import Property
from prizes.letter_models import LetterLine, Payout, PrizeLetter
from prizes.letter_services import letter_issue
from prizes.models import GamePlay, PrizeBoard, PrizeLine, Progressive, ProgressiveEntry, WildCardBin
from prizes.tests.conftest import DRAW_AT, after_the_draw_time, complete_draw, running_draw, won_draw  # noqa: F401 (a fixture)
from prizes.tests.letter_helpers import desk_actor_for, presented
from promotions.models import Promotion, PromotionStatus
from proxies.models import DeclineRegistration, ProxyNomination
from records import retention
from testing.db import shared_rows, triggers_off

pytestmark = pytest.mark.django_db

ROLE = settings.DB_APP_ROLE
KEPT = r"kept three years after it ended, until"

# Every kind of row kept (the migration's GUARDED, with draws_rapsentry).
KINDS = [
    Promotion,
    Draw,
    Activation,
    DrawPick,
    RapsList,
    RapsEntry,
    ProxyNomination,
    DeclineRegistration,
    PrizeLine,
    PrizeLetter,
    LetterLine,
    Payout,
    ProgressiveEntry,
    GamePlay,
    WildCardBin,
]


def db_today() -> dt.date:
    with connection.cursor() as cursor:
        cursor.execute("SELECT (now() AT TIME ZONE 'Africa/Johannesburg')::date")
        return cursor.fetchone()[0]


def ended(promotion: Promotion, *, years: int = 3, days: int) -> None:
    """The promotion ended `years` years and `days` days before the database's today (days < 0: fewer)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE promotions_promotion SET starts_on = e - 30, ends_on = e FROM (SELECT "
            "((now() AT TIME ZONE 'Africa/Johannesburg')::date - make_interval(years => %s))::date - %s AS e) x "
            "WHERE id = %s",
            [years, days, promotion.pk],
        )


@pytest.fixture(scope="module")
def kept_record(django_db_setup, django_db_blocker):
    """The record below, made once for the module (testing.db.shared_rows: ~80 tests made it
    each, a second of setup apiece): each test's deletes and dates roll back to it."""
    with shared_rows(django_db_blocker):
        with time_machine.travel(DRAW_AT + dt.timedelta(minutes=1), tick=False):  # as prizes' `won` is made
            reference_rows()
            promotion = make_record(won_draw(complete_draw(running_draw())), make_user)
        # Its own code: make_series() in the other tests then makes them a promotion of their own.
        Promotion.objects.filter(pk=promotion.pk).update(code="retention-record")
        yield promotion


@pytest.fixture
def record(kept_record, after_the_draw_time):  # noqa: F811 (the imported fixture)
    """The record's promotion; the test runs at the draw's time, as it did under prizes' `won`."""
    return kept_record


def make_record(won, user_for):
    """A complete draw with a row of every kept kind: entries, picks, prize lines, a letter and its
    lines, a payout, a proxy nomination, a decline, a RAPS list, a jackpot entry, a stage game,
    a wild card bin. Rows no service of this test makes are written with the triggers off."""
    draw, first, second = won
    letter = letter_issue(actor=desk_actor_for(user_for), **presented(first))
    clerk = user_for("rewards_desk")
    now = dt.datetime.now(dt.UTC)
    line = letter.lines.first().prize_line
    promotion = draw.series.promotion
    with triggers_off():
        Payout.objects.create(
            prize_line=line,
            letter=letter,
            property=draw.property,
            kind=line.kind,
            amount_cents=line.amount_cents,
            paid_at=now,
            paid_by="cashier",
            where="cash_desk",
        )
        ProxyNomination.objects.create(
            draw=draw,
            participant=first.member,
            nominee_name="Sipho Proxy",
            nominee_id_type="sa_id",
            nominee_id_number="8001015009087",
            registered_by=clerk,
            registered_at=now,
            batch=uuid.uuid4(),
            participant_id_seen=True,
            nominee_id_seen=True,
            form_signed=True,
        )
        DeclineRegistration.objects.create(
            draw=draw, member=second.member, registered_by=clerk, registered_at=now, batch=uuid.uuid4(), id_seen=True
        )
        raps = RapsList.objects.create(
            draw=draw,
            file_name="floor.csv",
            uploaded_at=now,
            uploaded_by="manager",
            rows_read=1,
            min_spend_cents=0,
            slot_quota=1,
            table_quota=0,
            canonical="",
            list_sha256="0" * 64,
        )
        RapsEntry.objects.create(
            raps_list=raps,
            pool="slot",
            row=1,
            card_number=first.member.card_number,
            member=first.member,
            device_id="A1",
            spend_cents=100,
        )
        progressive = Progressive.objects.create(
            promotion=promotion, series=draw.series, code="safe", name="Safe", base_cents=100, increment_cents=10
        )
        ProgressiveEntry.objects.create(
            progressive=progressive,
            draw=draw,
            kind="grow",
            change_cents=10,
            balance_cents=110,
            words="grew",
            created_by="test",
        )
        board = PrizeBoard.objects.create(series=draw.series, game="podium", total_cents=0)
        GamePlay.objects.create(draw=draw, pick=first, board=board, game="podium")
        WildCardBin.objects.create(draw=draw, number=1, bin_draw=draw, recorded_at=now)
    return promotion


def a_row(model, promotion: Promotion):
    if model is Promotion:
        return promotion
    if model is Draw:
        return Draw.objects.get(series__promotion=promotion)
    if model is RapsEntry:
        return RapsEntry.objects.get(raps_list__draw__series__promotion=promotion)
    if model is LetterLine:
        return LetterLine.objects.filter(letter__draw__series__promotion=promotion).first()
    if model is Payout:
        return Payout.objects.get(prize_line__draw__series__promotion=promotion)
    return model.objects.filter(draw__series__promotion=promotion).first()


@contextmanager
def only_retention(table: str):
    """As the application's role, with `table`'s other user triggers off until the block ends."""
    with transaction.atomic(), connection.cursor() as cursor:
        # ALTER TABLE refuses while deferred checks are pending: run them now, defer the rest again
        # (a row others point at is deleted here only to be put back by the savepoint).
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute(f"ALTER TABLE {table} DISABLE TRIGGER USER")
        cursor.execute(f"ALTER TABLE {table} ENABLE TRIGGER records_retention")
        cursor.execute("SET CONSTRAINTS ALL DEFERRED")
        with as_app_role() as app:
            yield app
        raise _Undo  # the savepoint puts the triggers (and the row) back


class _Undo(Exception):
    pass


def delete_as_app(model, row) -> None:
    table = model._meta.db_table
    with only_retention(table) as cursor:
        cursor.execute(f"DELETE FROM {table} WHERE id = %s", [row.pk])  # noqa: S608  (a model's table)
        assert cursor.rowcount == 1


@pytest.mark.parametrize("model", KINDS, ids=lambda m: m._meta.db_table)
def test_a_row_of_a_promotion_that_ended_three_years_less_a_day_ago_is_kept(record, model):
    ended(record, days=-1)
    row = a_row(model, record)
    with pytest.raises(DatabaseError, match=KEPT):
        delete_as_app(model, row)
    assert model.objects.filter(pk=row.pk).exists()


@pytest.mark.parametrize("model", KINDS, ids=lambda m: m._meta.db_table)
def test_a_row_of_a_promotion_that_ended_three_years_and_a_day_ago_may_go(record, model):
    ended(record, days=1)
    row = a_row(model, record)
    with pytest.raises(_Undo):
        delete_as_app(model, row)


def test_the_third_anniversary_of_the_last_day_is_still_kept(record):
    if db_today().month == 2 and db_today().day == 29:
        pytest.skip("no anniversary three years back on the 29th of February")
    ended(record, days=0)
    with pytest.raises(DatabaseError, match=KEPT):
        delete_as_app(Draw, a_row(Draw, record))


@pytest.mark.parametrize("model", KINDS, ids=lambda m: m._meta.db_table)
def test_every_guard_together_refuses_the_application_within_three_years(record, model):
    """No trigger switched off: the application's role cannot delete any row of the record."""
    ended(record, days=-1)
    row = a_row(model, record)
    table = model._meta.db_table
    with pytest.raises(DatabaseError, match=r"refused|never|frozen|has started"), as_app_role() as cursor:
        cursor.execute(f"DELETE FROM {table} WHERE id = %s", [row.pk])  # noqa: S608  (a model's table)
    assert model.objects.filter(pk=row.pk).exists()


@pytest.mark.parametrize("model", [*KINDS], ids=lambda m: m._meta.db_table)
def test_the_application_may_not_truncate_a_kept_table(record, model):
    table = model._meta.db_table
    with pytest.raises(DatabaseError, match="permission denied"), as_app_role() as cursor:
        cursor.execute(f"TRUNCATE {table} CASCADE")


def test_the_application_holds_truncate_on_no_table(db):
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE c.relkind IN ('r', 'p') AND n.nspname = current_schema() "
            "AND has_table_privilege(%s, c.oid, 'TRUNCATE')",
            [ROLE],
        )
        assert cursor.fetchall() == []


def test_the_orm_refuses_in_words_before_the_database(record):
    ended(record, days=-1)
    payout = a_row(Payout, record)
    with pytest.raises(DomainError) as refused, as_app_role():
        payout.delete()
    assert refused.value.code == "kept_three_years"
    first_day = db_today() + dt.timedelta(days=2)  # kept through ends_on + 3 years: tomorrow
    assert refused.value.message == (
        "This payout is part of a promotion's records, which are kept for three years after the promotion ends "
        f"(Consumer Protection Act, section 36): it cannot be deleted before {first_day:%d %b %Y}."
    )
    assert Payout.objects.filter(pk=payout.pk).exists()


@pytest.mark.parametrize("model", [LetterLine, ProxyNomination, DeclineRegistration, WildCardBin, ProgressiveEntry])
def test_each_kept_kind_is_refused_in_words_by_the_orm(record, model):
    ended(record, days=-1)
    with pytest.raises(DomainError, match=retention.WHAT[model]), as_app_role():
        a_row(model, record).delete()


def test_a_draft_promotion_and_its_scheduled_draws_without_tickets_may_be_deleted(reference_data):
    from draws.tests.factories import make_draw
    from promotions.tests.factories import make_series

    series = make_series()
    promotion = series.promotion
    Promotion.objects.filter(pk=promotion.pk).update(status=PromotionStatus.DRAFT)
    draw = make_draw(series, DRAW_AT)
    ended(promotion, years=0, days=-365)  # ends a year from now
    with as_app_role():
        Draw.objects.get(pk=draw.pk).delete()
        Promotion.objects.get(pk=promotion.pk).delete()  # its series and their rules with it
    assert not Promotion.objects.filter(pk=promotion.pk).exists()


def test_a_published_promotions_scheduled_draw_is_kept_and_so_is_a_cancelled_one(reference_data):
    from draws.tests.factories import make_draw
    from promotions.tests.factories import make_series

    series = make_series()
    Promotion.objects.filter(pk=series.promotion_id).update(status=PromotionStatus.PUBLISHED)
    draw = make_draw(series, DRAW_AT)
    ended(series.promotion, years=0, days=-365)
    with pytest.raises(DatabaseError, match=KEPT):
        delete_as_app(Draw, draw)
    with pytest.raises(DomainError, match="This draw is part of a promotion's records"), as_app_role():
        Draw.objects.get(pk=draw.pk).delete()
    Promotion.objects.filter(pk=series.promotion_id).update(status=PromotionStatus.DRAFT)
    Draw.objects.filter(pk=draw.pk).update(status="cancelled")
    with pytest.raises(DatabaseError, match=KEPT):
        delete_as_app(Draw, draw)


def test_a_raps_list_is_replaced_until_its_session_starts(reference_data):
    """draws.raps deletes a list it replaces before the first pick: the retention lets it."""
    from draws.tests.raps_fixtures import closed_session, csv_text, floor_players, floor_rows, raps_series, upload

    draw = closed_session(raps_series(winners=4))
    Promotion.objects.filter(pk=draw.series.promotion_id).update(ends_on="2099-12-31")
    players = floor_players()
    upload(draw, csv_text(*floor_rows(players)), slot_quota=2, table_quota=2)
    first = RapsList.objects.get(draw=draw).pk
    upload(draw, csv_text(*floor_rows(players[:-1])), slot_quota=2, table_quota=2, reason="A row too many.")
    assert RapsList.objects.get(draw=draw).pk != first


def test_a_child_whose_promotion_is_gone_is_kept(record):
    ended(record, days=1)
    pick = a_row(DrawPick, record)
    with pytest.raises(DatabaseError, match="cannot be found"), only_retention("draws_drawpick") as cursor:
        cursor.execute("SET CONSTRAINTS ALL DEFERRED")
        cursor.execute("RESET ROLE")
        cursor.execute("ALTER TABLE draws_draw DISABLE TRIGGER USER")
        cursor.execute("DELETE FROM draws_draw WHERE id = %s", [pick.draw_id])
        cursor.execute(f'SET LOCAL ROLE "{ROLE}"')
        cursor.execute("DELETE FROM draws_drawpick WHERE id = %s", [pick.pk])


# --- Cascades and the admin -----------------------------------------------------------------------


def test_no_kept_row_is_deleted_by_a_cascade_from_outside_the_record():
    """Deleting a member, property, series, user... stops at a PROTECT before it reaches a kept
    row, so Django refuses in words (ProtectedError) before the trigger would: every foreign key
    of a kept model onto a model outside the record is PROTECT."""
    from django.db.models import PROTECT, RESTRICT

    kept = set(KINDS)
    loose = [
        f"{model.__name__}.{field.name}"
        for model in kept
        for field in model._meta.get_fields()
        if field.many_to_one or field.one_to_one
        if field.concrete and field.remote_field.model not in kept
        if field.remote_field.on_delete not in (PROTECT, RESTRICT)
    ]
    assert loose == []


@pytest.mark.parametrize("what", ["member", "property", "series", "promotion", "user"])
def test_deleting_what_the_record_points_at_is_refused_in_words(record, what):
    """A member, property, series, promotion or member of staff of the record: Django's
    collector stops at a PROTECT (words: ProtectedError) before any kept row is touched."""
    from django.db.models import ProtectedError

    ended(record, days=-1)
    draw = a_row(Draw, record)
    pick = a_row(DrawPick, record)
    target = {
        "member": pick.member,
        "property": draw.property,
        "series": draw.series,
        "promotion": record,
        "user": a_row(ProxyNomination, record).registered_by,
    }[what]
    with pytest.raises(ProtectedError, match="Cannot delete some instances"), as_app_role():
        target.delete()
    assert type(target).objects.filter(pk=target.pk).exists()


def test_the_admin_offers_no_delete_of_a_kept_row(rf, django_user_model):
    admin_user = django_user_model.objects.create_superuser("root", "root@example.com", "x")
    request = rf.get("/")
    request.user = admin_user
    offered = [
        model.__name__
        for model, model_admin in site._registry.items()
        if model in KINDS and model_admin.has_delete_permission(request)
    ]
    assert offered == []


def test_the_admin_refuses_in_words_to_delete_a_property_with_draws(record, client, django_user_model):
    admin_user = django_user_model.objects.create_superuser("root", "root@example.com", "x")
    client.force_login(admin_user)
    prop = a_row(Draw, record).property
    url = reverse("admin:members_property_delete", args=[prop.pk])
    page = client.post(url, {"post": "yes"})
    assert page.status_code == 200
    assert "Cannot delete property" in page.content.decode()
    assert Property.objects.filter(pk=prop.pk).exists()


def test_a_refusal_in_words_is_none_for_a_row_that_may_go(record):
    ended(record, days=1)
    assert retention.delete_refusal(a_row(Payout, record)) is None
    ended(record, days=-1)
    assert "payout" in retention.delete_refusal(a_row(Payout, record))
