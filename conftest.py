"""Fixtures shared by every app's tests: reference data, one user per role, a client logged
in as each of them."""

import pytest
from django.contrib.auth.models import Group
from django.test import Client

from core.roles import AUDITOR, CASH_DESK, PROMOTIONS_MANAGER, REWARDS_DESK
from members.demo import PROPERTIES as DEMO_PROPERTY_NAMES
from members.tests.factories import UserFactory

# `--clock=HH:MM` runs the session at that Johannesburg wall time (see testing/clock.py); a
# transactional test's tables are emptied with DELETE rather than TRUNCATE (testing/flush.py);
# under pytest-xdist the bench smoke tests run in one process, first (testing/schedule.py).
pytest_plugins = ["testing.clock", "testing.clock_readers", "testing.flush", "testing.schedule"]

ROLES = [REWARDS_DESK, PROMOTIONS_MANAGER, CASH_DESK, AUDITOR]
DEMO_PROPERTIES = [code for code, _ in DEMO_PROPERTY_NAMES]  # GRC first


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix):
    """pytest-django's hook before the test database is made: make it a copy of the migrated
    template (testing/template_db.py), not a migration from nothing."""
    from django.conf import settings

    from testing.template_db import template_database

    db = settings.DATABASES["default"]
    db.setdefault("TEST", {})["TEMPLATE"] = template_database(db)


def reference_rows():
    """What members.demo.ensure_reference_data() leaves (the four properties, the five tiers), in
    two SELECTs when the rows are there as it would leave them, or two INSERTs into empty tables:
    a test asks for them in a fixture and again for each user it makes, and the ~40 statements of
    its update_or_create calls were a fifth of a typical test's time. Anything else (some rows
    there, a name changed) goes through ensure_reference_data() itself."""
    from members.demo import PROPERTIES, TIERS, ensure_reference_data
    from members.models import Property, Tier

    wanted_tiers = [(code, name, rank) for rank, (code, name) in enumerate(TIERS, start=1)]
    by_code = {p.code: p for p in Property.objects.all()}
    tiers_by_code = {t.code: t for t in Tier.objects.all()}
    if not by_code and not tiers_by_code:
        properties = Property.objects.bulk_create([Property(code=code, name=name) for code, name in PROPERTIES])
        tiers = Tier.objects.bulk_create([Tier(code=c, name=n, rank=r) for c, n, r in wanted_tiers])
        return properties, tiers
    properties = [by_code.get(code) for code, _ in PROPERTIES]
    tiers = [tiers_by_code.get(code) for code, _, _ in wanted_tiers]
    if (
        all(properties)
        and all(tiers)
        and [(p.code, p.name) for p in properties] == list(PROPERTIES)
        and [(t.code, t.name, t.rank) for t in tiers] == wanted_tiers
    ):
        return properties, tiers
    return ensure_reference_data()


@pytest.fixture
def reference_data(db):
    properties, tiers = reference_rows()
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
    from members.models import StaffProfile

    by_code = {p.code: p for p in reference_rows()[0]}
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
