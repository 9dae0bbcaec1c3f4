# Shared by scripts/db-backup and scripts/db-restore (sourced, not run).
# Connection strings are libpq URIs, as DATABASE_URL is (postgres://user:pass@host:port/name).

die() { echo "$PROG: $*" >&2; exit 2; }
say() { echo "$PROG: $*"; }

# The owner's URL when set (it owns every table, trigger and grant), else DATABASE_URL.
owner_url() {
    local url=${MIGRATION_DATABASE_URL:-${DATABASE_URL:-}}
    [ -n "$url" ] || die "set DATABASE_URL (and MIGRATION_DATABASE_URL, the owner's, in production)."
    [[ $url =~ ^postgres(ql)?:// ]] || die "the database is not PostgreSQL ($(redact "$url")): backups are for PostgreSQL only."
    echo "$url"
}

# The same URL naming another database (query string kept).
with_database() {  # url name
    [[ $1 =~ ^(postgres(ql)?://[^/?]*)(/[^?]*)?(\?.*)?$ ]] || die "cannot read the database URL $(redact "$1")"
    echo "${BASH_REMATCH[1]}/$2${BASH_REMATCH[4]}"
}

database_of() {  # url
    [[ $1 =~ ^postgres(ql)?://[^/?]*/([^?]+) ]] && echo "${BASH_REMATCH[2]}"
}

redact() { sed -E 's#(://[^:/@]*):[^@]*@#\1:***@#' <<<"$1"; }

# pg_dump / pg_restore / psql of the server's major version: pg_dump cannot dump a newer server,
# and an older archive reader cannot read a newer pg_dump's archive. PG_BINDIR overrides.
use_tools_for() {  # url
    local url=$1 num major dir version
    num=$(psql --no-psqlrc -XAtq -d "$url" -c 'SHOW server_version_num' 2>&1) ||
        die "cannot connect to $(redact "$url"): $num"
    major=$((num / 10000))
    dir=${PG_BINDIR:-/usr/lib/postgresql/$major/bin}
    if [ -x "$dir/pg_dump" ]; then
        PG_DUMP=$dir/pg_dump PG_RESTORE=$dir/pg_restore PSQL=$dir/psql
    else
        PG_DUMP=pg_dump PG_RESTORE=pg_restore PSQL=psql
    fi
    version=$("$PG_DUMP" --version | grep -oE '[0-9]+' | head -n 1)
    [ "$version" -ge "$major" ] ||
        die "$PG_DUMP is version $version but the server is $major: install PostgreSQL $major's client (or set PG_BINDIR)."
    SERVER_MAJOR=$major
}

sql() {  # url statement...: one value per line, stops on error
    "$PSQL" --no-psqlrc -XAtq -v ON_ERROR_STOP=1 -d "$1" -c "$2"
}
