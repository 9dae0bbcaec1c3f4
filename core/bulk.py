"""Fast appends of many rows, for imports: COPY on PostgreSQL, executemany elsewhere.

Model instances and bulk_create cost ~100 µs a row in Python; a million-row points file
needs plain tuples instead.
"""

from collections.abc import Iterable, Sequence

from django.db import connection


def bulk_insert(table: str, columns: Sequence[str], rows: Iterable[Sequence]) -> None:
    rows = list(rows)
    if not rows:
        return
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            names = ", ".join(connection.ops.quote_name(c) for c in columns)
            with cursor.cursor.copy(f"COPY {connection.ops.quote_name(table)} ({names}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
        else:
            names = ", ".join(connection.ops.quote_name(c) for c in columns)
            marks = ", ".join(["%s"] * len(columns))
            cursor.executemany(f"INSERT INTO {connection.ops.quote_name(table)} ({names}) VALUES ({marks})", rows)  # noqa: S608
