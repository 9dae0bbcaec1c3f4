"""Django's database sessions, except that a lost database is an error, not a "Bad Request".

The desk's session is saved on every request (SESSION_SAVE_EVERY_REQUEST: the idle timeout).
Django's db backend turns any DatabaseError of that save into UpdateError ("the session was
deleted"), which SessionMiddleware answers with 400: so when PostgreSQL restarts while a page is
being served, the clerk got "Bad Request (400)" (bench/pg_restart.py saw it). A connection error
now goes up as itself and the request ends on the 500 error page like any other in flight; a
session truly deleted meanwhile (no row updated) is still UpdateError.
"""

from django.contrib.sessions.backends.base import UpdateError
from django.contrib.sessions.backends.db import SessionStore as DatabaseSessionStore
from django.db import InterfaceError, OperationalError


class SessionStore(DatabaseSessionStore):
    def save(self, must_create: bool = False) -> None:
        try:
            super().save(must_create=must_create)
        except UpdateError as error:
            if isinstance(error.__context__, OperationalError | InterfaceError):
                raise error.__context__ from None
            raise
