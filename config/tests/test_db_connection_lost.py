"""PostgreSQL restarted under the web server (issue 16, faults): a request after its kept
connection died is served on a new one (CONN_HEALTH_CHECKS), with no restart of the web server.
Here the death is this test's own connection ended by pg_terminate_backend, as a restart ends
every connection; bench/pg_restart.py restarts a private cluster under load."""

import select
import time

import psycopg
import pytest
from django.db import close_old_connections, connection
from django.urls import reverse

from core.roles import REWARDS_DESK


def terminate_djangos_connection() -> None:
    """End Django's connection from another one, and return once it is dead: pg_terminate_backend
    only signals the backend, whose goodbye reaches the socket a moment later (on a loaded
    machine, after the next request had already found the connection quiet and used it)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    params = connection.get_connection_params()
    with psycopg.connect(**{k: v for k, v in params.items() if k != "cursor_factory"}, autocommit=True) as other:
        assert other.execute("SELECT pg_terminate_backend(%s)", [pid]).fetchone()[0]
    deadline = time.monotonic() + 5
    while not select.select([connection.connection.fileno()], [], [], 0.05)[0]:
        assert time.monotonic() < deadline, "the server never said goodbye to the ended connection"


def serve(client, url):
    # What every real request does first (request_started), and the test client leaves out.
    close_old_connections()
    return client.get(url)


@pytest.mark.django_db(transaction=True)
def test_the_request_after_the_database_dropped_its_connection_is_served_on_a_new_one(client_for):
    desk = client_for(REWARDS_DESK)
    assert serve(desk, reverse("home")).status_code == 200
    terminate_djangos_connection()

    assert serve(desk, reverse("home")).status_code == 200
    assert serve(desk, reverse("home")).status_code == 200


@pytest.mark.django_db(transaction=True)
def test_a_session_save_on_a_lost_connection_is_an_error_not_a_deleted_session(client_for):
    # Django's own store says UpdateError here, which the middleware answers "Bad Request (400)".
    from django.conf import settings
    from django.contrib.sessions.backends.base import UpdateError
    from django.db import OperationalError
    from django.utils.module_loading import import_string

    desk = client_for(REWARDS_DESK)
    store = import_string(f"{settings.SESSION_ENGINE}.SessionStore")(desk.session.session_key)
    store["seen"] = 1
    terminate_djangos_connection()

    with pytest.raises(OperationalError):
        store.save()
    close_old_connections()
    store.delete()  # a session gone for real is still Django's UpdateError
    with pytest.raises(UpdateError):
        store.save()


@pytest.mark.django_db(transaction=True)
def test_a_quiet_kept_connection_is_taken_without_a_round_trip_and_a_dropped_one_is_asked(monkeypatch):
    """core.postgresql: Django's SELECT 1 only once the server has said something."""
    from django.db.backends.postgresql.base import DatabaseWrapper as DjangosWrapper

    asked = []
    djangos_check = DjangosWrapper.is_usable
    monkeypatch.setattr(DjangosWrapper, "is_usable", lambda self: asked.append("SELECT 1") or djangos_check(self))
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    assert connection.is_usable() and asked == []

    terminate_djangos_connection()
    assert not connection.is_usable() and asked == ["SELECT 1"]
    connection.close()  # as close_old_connections would after the failed check
