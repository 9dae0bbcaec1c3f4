"""Fixtures shared by every app's tests: reference data, one user per role, a client logged
in as each of them."""

import pytest
from django.contrib.auth.models import Group
from django.test import Client

from core.roles import AUDITOR, CASH_DESK, PROMOTIONS_MANAGER, REWARDS_DESK
from members.demo import PROPERTIES as DEMO_PROPERTY_NAMES
from members.tests.factories import UserFactory

# `--clock=HH:MM` runs the session at that Johannesburg wall time (see testing/clock.py); a
# transactional test's tables are emptied with DELETE rather than TRUNCATE (testing/flush.py).
pytest_plugins = ["testing.clock", "testing.flush"]

ROLES = [REWARDS_DESK, PROMOTIONS_MANAGER, CASH_DESK, AUDITOR]
DEMO_PROPERTIES = [code for code, _ in DEMO_PROPERTY_NAMES]  # GRC first


@pytest.fixture
def reference_data(db):
    from members.demo import ensure_reference_data

    properties, tiers = ensure_reference_data()
    return {"properties": {p.code: p for p in properties}, "tiers": {t.code: t for t in tiers}}


# Roles that act only at the properties of their staff profile (members.staff).
PROPERTY_BOUND = {REWARDS_DESK, PROMOTIONS_MANAGER, CASH_DESK}  # the cash desk pays at its own (issue 15)
EVERY_PROPERTY = object()


def make_user(role: str | None, *, properties=EVERY_PROPERTY, **kwargs):
    """A user of `role`. The desk and managers get a staff profile (a user without one acts
    nowhere): at every property by default (home Gold Reef City), or at `properties` (codes,
    the first the home property); `properties=()` leaves them without a profile."""
    if role == "superuser":
        return UserFactory(is_superuser=True, is_staff=True, **kwargs)
    user = UserFactory(**kwargs)
    if role:
        user.groups.add(Group.objects.get(name=role))
    if role in PROPERTY_BOUND and properties:
        give_properties(user, list(DEMO_PROPERTIES) if properties is EVERY_PROPERTY else properties)
    return user


def give_properties(user, codes) -> None:
    """Give `user` a staff profile at the properties `codes` (the first the home), unaudited:
    a fixture, not a change anyone made."""
    from members.demo import ensure_reference_data
    from members.models import StaffProfile

    by_code = {p.code: p for p in ensure_reference_data()[0]}
    chosen = [by_code[code] for code in codes]
    profile, _ = StaffProfile.objects.update_or_create(user=user, defaults={"home_property": chosen[0]})
    profile.other_properties.set(chosen[1:])
    if hasattr(user, "_staff_properties_cache"):
        delattr(user, "_staff_properties_cache")


@pytest.fixture
def user_for(db):
    return make_user


@pytest.fixture
def client_for(db):
    def login(role: str | None) -> Client:
        client = Client()
        client.force_login(make_user(role))
        return client

    return login


@pytest.fixture
def desk(client_for):
    return client_for(REWARDS_DESK)


@pytest.fixture
def manager(client_for):
    return client_for(PROMOTIONS_MANAGER)


@pytest.fixture
def auditor(client_for):
    return client_for(AUDITOR)


@pytest.fixture
def cashier(client_for):
    return client_for(CASH_DESK)
