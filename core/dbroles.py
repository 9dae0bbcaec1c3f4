"""The application's PostgreSQL role: it owns nothing, may only SELECT and INSERT in the
audit log, and only what the model says in the tables whose model says so (`app_role_privileges`:
SELECT on a draw's commitments, SELECT and INSERT on the audit log's daily seals), and may not
create TEMP tables (a TEMP table named like a real one is what a trigger function with a loose
search_path would read instead).

Migrations run as the owner of the tables (MIGRATION_DATABASE_URL); web, worker and beat
connect as settings.DB_APP_ROLE (DATABASE_URL). Only an owner or a superuser may TRUNCATE a
table, ALTER it (DISABLE TRIGGER), DROP a trigger or SET session_replication_role, so the
application cannot do any of that to the audit log whatever SQL it is tricked into running.
"""

import logging

from django.apps import apps
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections

from core.models import AuditEvent

log = logging.getLogger(__name__)


def grant_app_role(*, using: str = DEFAULT_DB_ALIAS, verbosity: int = 1, **kwargs) -> None:
    """Create the role if missing and allowed, then (re)apply its grants to every table.

    Runs after every migrate (post_migrate), so tables added by later migrations are covered;
    ALTER DEFAULT PRIVILEGES covers tables the owner creates by other means.
    """
    role = settings.DB_APP_ROLE
    connection = connections[using]
    if not role or connection.vendor != "postgresql":
        return
    audit = AuditEvent._meta.db_table
    with connection.cursor() as cursor:
        if audit not in connection.introspection.table_names(cursor):
            return  # migrating a subset of apps before core: the migrate that creates it grants
        cursor.execute("SELECT current_user, rolsuper OR rolcreaterole FROM pg_roles WHERE rolname = current_user")
        owner, may_create_roles = cursor.fetchone()
        if owner == role:
            raise RuntimeError(
                f"migrate is connected as the application role {role!r}; run it as the owner of the tables "
                "(set MIGRATION_DATABASE_URL)."
            )
        cursor.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [role])
        if cursor.fetchone() is None:
            if not may_create_roles:
                _say(
                    verbosity,
                    f"The application role {role!r} does not exist and {owner!r} may not create roles: "
                    f"ask the DBA to run  CREATE ROLE {role} LOGIN PASSWORD '...';  then run migrate again "
                    "to grant it its rights. Until then the application cannot connect as that role.",
                )
                return
            # NOLOGIN: a role made here is for tests and SET ROLE; production's is made with a
            # password by the database's init script (deploy/postgres-init).
            cursor.execute(
                f"DO $$ BEGIN CREATE ROLE {_ident(role)} NOLOGIN; "
                "EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$"
            )
        schema = _ident(_current_schema(cursor))
        app = _ident(role)
        for statement in (
            f"GRANT USAGE ON SCHEMA {schema} TO {app}",
            f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA {schema} TO {app}",
            f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA {schema} TO {app}",
            # The audit log: read and append, nothing else.
            f"REVOKE ALL ON {_ident(audit)} FROM {app}",
            f"GRANT SELECT, INSERT ON {_ident(audit)} TO {app}",
            # The migration history is the owner's to write.
            f"REVOKE ALL ON django_migrations FROM {app}",
            f"GRANT SELECT ON django_migrations TO {app}",
            f"ALTER DEFAULT PRIVILEGES IN SCHEMA {schema} GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO {app}",
            f"ALTER DEFAULT PRIVILEGES IN SCHEMA {schema} GRANT USAGE, SELECT ON SEQUENCES TO {app}",
        ):
            cursor.execute(statement)
        tables = set(connection.introspection.table_names(cursor))
        for model in apps.get_models():
            privileges = getattr(model, "app_role_privileges", None)
            if privileges is not None and model._meta.db_table in tables:
                table = _ident(model._meta.db_table)
                cursor.execute(f"REVOKE ALL ON {table} FROM {app}")
                if privileges:
                    cursor.execute(f"GRANT {', '.join(privileges)} ON {table} TO {app}")
        _revoke_temporary(cursor, role, verbosity)
    _say(verbosity, f"Granted the application role {role!r} its rights (audit log: SELECT and INSERT only).")


def _revoke_temporary(cursor, role: str, verbosity: int) -> None:
    """No TEMP tables for the application's role (nor for PUBLIC, through which every role has
    them by default). Only the database's owner (or a superuser) can revoke it: otherwise say
    what the DBA has to run."""
    cursor.execute("SELECT current_database()")
    database = _ident(cursor.fetchone()[0])
    app = _ident(role)
    for grantee in ("PUBLIC", app):
        cursor.execute(f"REVOKE TEMPORARY ON DATABASE {database} FROM {grantee}")
    cursor.execute("SELECT has_database_privilege(%s, current_database(), 'TEMPORARY')", [role])
    if cursor.fetchone()[0]:
        _say(
            verbosity,
            f"The application role may still create TEMP tables in {database}: ask the database's owner to run  "
            f"REVOKE TEMPORARY ON DATABASE {database} FROM PUBLIC, {app};",
        )


def _current_schema(cursor) -> str:
    cursor.execute("SELECT current_schema()")
    return cursor.fetchone()[0]


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _say(verbosity: int, message: str) -> None:
    log.info(message)
    if verbosity >= 1:
        print(message)
