"""Fixtures shared by every app's tests: reference data, one user per role, a client logged
in as each of them."""

import pytest
from django.contrib.auth.models import Group
from django.test import Client

from core.roles import AUDITOR, CASH_DESK, PROMOTIONS_MANAGER, REWARDS_DESK
from members.tests.factories import UserFactory

# `--clock=HH:MM` runs the session at that Johannesburg wall time (see testing/clock.py).
pytest_plugins = ["testing.clock"]

ROLES = [REWARDS_DESK, PROMOTIONS_MANAGER, CASH_DESK, AUDITOR]


@pytest.fixture
def reference_data(db):
    from members.demo import ensure_reference_data

    properties, tiers = ensure_reference_data()
    return {"properties": {p.code: p for p in properties}, "tiers": {t.code: t for t in tiers}}


def make_user(role: str | None, **kwargs):
    if role == "superuser":
        return UserFactory(is_superuser=True, is_staff=True, **kwargs)
    user = UserFactory(**kwargs)
    if role:
        user.groups.add(Group.objects.get(name=role))
    return user


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
