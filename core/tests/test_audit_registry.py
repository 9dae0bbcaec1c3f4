"""Each app registers its own audit words (issue 15, Part 0 item 2): core keeps the registry
only, and a code registered twice is refused, not silently overwritten."""

import importlib.util

import pytest
from django.urls import reverse

from core import audit_words
from core.audit_words import AlreadyRegistered, ObjectKind, register_actions, register_object_kinds, words
from core.roles import AUDITOR


@pytest.fixture
def registries():
    """The registries as the apps left them, put back after the test adds to them."""
    saved = {
        name: dict(getattr(audit_words, name))
        for name in ("ACTIONS", "AREAS", "OBJECT_KINDS", "SYSTEM_ACTORS", "VALUE_CHOICES")
    }
    yield
    for name, entries in saved.items():
        registry = getattr(audit_words, name)
        registry.clear()
        registry.update(entries)
    audit_words.choice_words.cache_clear()


def test_core_itself_names_no_app_s_objects_or_actions():
    spec = importlib.util.spec_from_file_location("fresh_audit_words", audit_words.__file__)
    fresh = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fresh)
    assert fresh.ACTIONS == {} and fresh.OBJECT_KINDS == {} and fresh.AREAS == {}
    assert fresh.SYSTEM_ACTORS == {} and fresh.VALUE_CHOICES == {}


@pytest.mark.parametrize(
    ("app", "action", "object_type"),
    [
        ("core.staff_audit_words", "auth.logged_in", "auth.user"),
        ("members.audit_words", "member.signed_up", "members.member"),
        ("promotions.audit_words", "series.created", "promotions.drawseries"),
        ("draws.audit_words", "draw.moved", "draws.draw"),
        ("proxies.audit_words", "proxy.nominated", "proxies.proxynomination"),
        ("prizes.audit_words", "prize.board_created", "prizes.prizeboard"),
    ],
)
def test_each_app_registers_its_words_once_at_startup(registries, app, action, object_type):
    assert action in audit_words.ACTIONS and object_type in audit_words.OBJECT_KINDS
    module = importlib.import_module(app)
    with pytest.raises(AlreadyRegistered):
        module.register()  # a second time, as if two apps claimed the same codes


def test_an_action_registered_twice_is_refused(registries):
    register_actions("Draws", {"draw.tested": words("Draw tested", "tested {object}")})
    assert audit_words.action_label("draw.tested") == "Draw tested"
    with pytest.raises(AlreadyRegistered, match=r"draw\.tested"):
        register_actions("Draws", {"draw.tested": words("Another", "tested {object} again")})
    assert audit_words.action_label("draw.tested") == "Draw tested"  # the first words stay


def test_one_first_word_belongs_to_one_area(registries):
    with pytest.raises(AlreadyRegistered, match="Draws"):
        register_actions("Prizes", {"draw.prized": words("Draw prized", "prized {object}")})
    assert "draw.prized" not in audit_words.ACTIONS


def test_an_object_kind_registered_twice_is_refused(registries):
    with pytest.raises(AlreadyRegistered, match=r"draws\.draw"):
        register_object_kinds({"draws.draw": ObjectKind("Draw again", "draw", ("name",), lambda v: v["name"])})
    assert audit_words.OBJECT_KINDS["draws.draw"].label == "Draw"


def test_a_new_app_s_action_reads_in_its_words_and_groups_under_its_area(registries):
    register_actions("Letters", {"letter.sent": words("Letter sent", "sent a letter to card {card_number}")})
    groups = dict(audit_words.action_choices()[1:])
    assert groups["Letters"] == [("area:Letters", "Everything in letters"), ("letter.sent", "Letter sent")]
    assert audit_words.area_prefixes("Letters") == ["letter."]


def test_the_areas_are_listed_in_the_alphabet_s_order_whatever_order_the_apps_start_in(db, user_for, client):
    client.force_login(user_for(AUDITOR))
    form = client.get(reverse("audit")).context["form"]
    areas = [area for area, _ in form.fields["action"].choices[1:]]
    assert areas == sorted(areas)
    assert set(areas) == {
        "Draws",
        "Imports",
        "Members",
        "Prizes",
        "Promotions",
        "Proxies and declines",
        "Records",  # members' own records (issue 16)
        "Reference data",
        "Sign-in and staff",
    }
