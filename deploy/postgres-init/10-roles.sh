#!/bin/sh
# Runs once, when the postgres container starts on an empty data volume (docker-entrypoint-initdb.d).
# Two roles (README, "Production"):
#   promodesk_owner  owns the database and its tables; only the one-shot `migrate` service uses it.
#   promodesk_app    owns nothing; web, worker and beat connect as it. `migrate` grants it
#                    SELECT/INSERT/UPDATE/DELETE on the tables and only SELECT/INSERT on the audit log.
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres \
    -v owner_password="$PROMODESK_OWNER_PASSWORD" -v app_password="$PROMODESK_APP_PASSWORD" <<'SQL'
CREATE ROLE promodesk_owner LOGIN PASSWORD :'owner_password' NOSUPERUSER NOCREATEDB NOCREATEROLE;
CREATE ROLE promodesk_app LOGIN PASSWORD :'app_password' NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT;
CREATE DATABASE promodesk OWNER promodesk_owner;
REVOKE ALL ON DATABASE promodesk FROM PUBLIC;
GRANT CONNECT, TEMPORARY ON DATABASE promodesk TO promodesk_app;
SQL
# PostgreSQL 15 no longer lets every role create tables in "public"; say so explicitly anyway.
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname promodesk <<'SQL'
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
SQL
