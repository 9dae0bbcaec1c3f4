"""A draw's version, which decides whether a worker's copy of it may be used
(draws.activation_cache), is kept by the database (draws/migrations/0022_draw_cache_version.py):
every change to what a copy holds makes a new one, the serial counter that every activation
moves does not, and the triggers that keep it refuse nothing that was allowed before."""

import datetime as dt
import uuid

import pytest
from django.db import connection
from django.db.models import F

from core.tests.test_audit_role import as_app_role
from draws import activation_cache
from draws.models import Draw, DrawStatus, TicketWindow
from draws.tests.test_api import DRAW_AT, draw  # noqa: F401 (fixture)
from members.models import Property, Tier
from promotions.models import EarningRule, Promotion, PromotionStatus

pytestmark = pytest.mark.django_db

NOT_WATCHED = {"id", "next_serial"}


def version(draw_id: int) -> int:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {activation_cache.draw_version_sql('%s')}", [draw_id])
        return cursor.fetchone()[0]


def test_every_column_of_a_draw_but_its_serial_counter_makes_a_new_version():
    """The UPDATE trigger lists the columns it watches: a column added to draws_draw must be added
    to it (a migration that recreates draws_draw_version_update with the new list). The version
    itself is one: set by hand, it becomes a new one."""
    with connection.cursor() as cursor:
        cursor.execute(
            """SELECT a.attname FROM pg_attribute a WHERE a.attrelid = 'draws_draw'::regclass
               AND a.attnum > 0 AND NOT a.attisdropped"""
        )
        columns = {name for (name,) in cursor.fetchall()}
        cursor.execute(
            """SELECT a.attname FROM pg_trigger t JOIN pg_attribute a
                 ON a.attrelid = t.tgrelid AND a.attnum = ANY (t.tgattr::int2[])
               WHERE t.tgrelid = 'draws_draw'::regclass AND t.tgname = 'draws_draw_version_update'"""
        )
        watched = {name for (name,) in cursor.fetchall()}
    assert watched == columns - NOT_WATCHED
    assert {f.column for f in Draw._meta.concrete_fields} - NOT_WATCHED <= watched
    assert "cache_version" in watched


def test_the_app_role_cannot_put_an_older_version_back(draw):  # noqa: F811
    """A stale copy would then pass for current (and the activation's guard with it)."""
    old = version(draw.pk)
    _rename_draw(draw)
    assert version(draw.pk) != old
    with as_app_role() as cursor:
        cursor.execute("UPDATE draws_draw SET cache_version = %s WHERE id = %s", [old, draw.pk])
    assert version(draw.pk) != old


def test_each_draw_has_a_version_of_its_own_and_new_draws_too(draw):  # noqa: F811
    """Random UUIDs: never given again (a test's rollback, a restore), and the draws there were
    when the column was added got one each (its default), not a shared zero."""
    other = Draw.objects.create(**{f.attname: getattr(draw, f.attname) for f in Draw._meta.concrete_fields
                                   if f.attname not in ("id", "scheduled_at", "name")},
                                scheduled_at=draw.scheduled_at + dt.timedelta(days=7), name="Another")  # fmt: skip
    assert isinstance(version(draw.pk), uuid.UUID)
    assert version(draw.pk) != version(other.pk)
    with connection.cursor() as cursor:
        cursor.execute(
            """SELECT pg_get_expr(d.adbin, d.adrelid) FROM pg_attrdef d JOIN pg_attribute a
                 ON a.attrelid = d.adrelid AND a.attnum = d.adnum
               WHERE d.adrelid = 'draws_draw'::regclass AND a.attname = 'cache_version'"""
        )
        assert cursor.fetchone()[0] == "gen_random_uuid()"


def test_the_serial_counter_and_a_save_that_changes_nothing_keep_the_version(draw):  # noqa: F811
    before = version(draw.pk)
    Draw.objects.filter(pk=draw.pk).update(next_serial=F("next_serial") + 7)
    assert version(draw.pk) == before
    Draw.objects.get(pk=draw.pk).save()  # every column written again, none changed
    assert version(draw.pk) == before


def _rename_draw(d):
    Draw.objects.filter(pk=d.pk).update(name="Renamed")


def _add_window(d):
    TicketWindow.objects.create(
        draw=d, opens_at=DRAW_AT - dt.timedelta(days=2), closes_at=DRAW_AT - dt.timedelta(days=2, hours=-1)
    )


def _move_window(d):
    TicketWindow.objects.filter(draw=d).update(closes_at=F("closes_at") - dt.timedelta(minutes=5))


def _remove_window(d):
    TicketWindow.objects.filter(draw=d).delete()


def _series(d):
    d.series.__class__.objects.filter(pk=d.series_id).update(name="Renamed series")


def _rule(d):
    EarningRule.objects.filter(series_id=d.series_id).update(points_per_ticket=50)


def _rule_removed(d):
    EarningRule.objects.filter(series_id=d.series_id).delete()


def _eligible_tier_removed(d):
    d.series.eligible_tiers.remove(Tier.objects.get(code="TEN"))


def _desk_tier_added(d):
    d.series.desk_assisted_tiers.add(Tier.objects.get(code="JACK"))


def _tier_renamed(d):
    Tier.objects.filter(code="QUEEN").update(name="Queen of Hearts")


def _promotion(d):
    Promotion.objects.filter(series__pk=d.series_id).update(status=PromotionStatus.CLOSED)


def _property(d):
    Property.objects.filter(pk=d.property_id).update(name="Gold Reef City Casino")


CHANGES = [
    _rename_draw,
    _add_window,
    _move_window,
    _remove_window,
    _series,
    _rule,
    _rule_removed,
    _eligible_tier_removed,
    _desk_tier_added,
    _tier_renamed,
    _promotion,
    _property,
]


@pytest.mark.parametrize("change", CHANGES, ids=[c.__name__.strip("_") for c in CHANGES])
def test_each_change_to_what_a_copy_holds_makes_a_new_version(draw, change):  # noqa: F811
    before = version(draw.pk)
    change(draw)
    after = version(draw.pk)
    assert after != before
    # A second change in the same transaction (a test's, or a request's) is a new version again.
    Draw.objects.filter(pk=draw.pk).update(name="And again")
    assert version(draw.pk) not in (before, after)


def test_a_copy_loaded_before_a_change_is_not_used_after_it(draw):  # noqa: F811
    activation_cache.forget_all()
    copy = activation_cache.cached_draw(draw.pk, version(draw.pk))
    assert activation_cache.cached_draw(draw.pk, version(draw.pk)) is copy
    _move_window(draw)
    fresh = activation_cache.cached_draw(draw.pk, version(draw.pk))
    assert fresh is not copy
    assert [w.closes_at for w in fresh.windows.all()] != [w.closes_at for w in copy.windows.all()]
    activation_cache.forget_all()


def test_a_cancelled_draws_tier_and_property_can_still_be_renamed_as_the_app_role(draw):  # noqa: F811
    """Later steps refuse any change of a draw (draws_draw_guard): the triggers move only the
    versions of scheduled draws, so renaming what a finished draw names is not refused."""
    Draw.objects.filter(pk=draw.pk).update(status=DrawStatus.CANCELLED)
    cancelled = version(draw.pk)
    with as_app_role() as cursor:
        cursor.execute("UPDATE members_tier SET name = name || ' (old)' WHERE code = 'QUEEN'")
        cursor.execute("UPDATE members_property SET name = name || ' (old)' WHERE id = %s", [draw.property_id])
        cursor.execute("UPDATE promotions_drawseries SET name = 'Renamed' WHERE id = %s", [draw.series_id])
    assert version(draw.pk) == cancelled


def test_the_app_role_changing_a_rule_makes_a_new_version(draw):  # noqa: F811
    before = version(draw.pk)
    with as_app_role() as cursor:
        rule = "UPDATE promotions_earningrule SET points_per_ticket = 25 WHERE series_id = %s"
        cursor.execute(rule, [draw.series_id])
    assert version(draw.pk) != before
