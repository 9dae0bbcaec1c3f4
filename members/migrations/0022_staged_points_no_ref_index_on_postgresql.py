"""The staged points lose their reference index on PostgreSQL (issue 17, item 3).

staged_points_ref_idx serves the row-by-row path (members.imports.points_chunk_check), which
looks each chunk's references up among the rows staged before it: SQLite's. On PostgreSQL a
points file is staged by COPY and checked by whole statements (points_apply, points_bad_rows),
which read the job's rows in one pass and never use the index. It cost every staged row an
entry: COPY of 200,000 staged rows took 0.94 s with it, 0.41 s without (bench/README.md), and
that COPY, not Python, had become what the read of a points file waited for. The model keeps
the index: SQLite still builds it.
"""

from django.db import migrations

from core.migration_sql import postgresql_only

DROP = "DROP INDEX IF EXISTS @schema@.staged_points_ref_idx"
CREATE = "CREATE INDEX staged_points_ref_idx ON @schema@.members_importstagedpoints (job_id, property_id, reference)"


class Migration(migrations.Migration):
    dependencies = [
        ("members", "0021_points_no_property_index"),
    ]

    operations = [
        postgresql_only(DROP, CREATE, in_schema=True),
    ]
