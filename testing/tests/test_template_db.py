"""The suite's databases are copies of one migrated template (testing/template_db.py)."""

import pytest
from django.conf import settings
from django.db import connection

from testing import template_db


@pytest.mark.django_db
def test_the_test_database_is_a_copy_made_again_with_the_grants_a_copy_does_not_carry():
    template = settings.DATABASES["default"]["TEST"]["TEMPLATE"]
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_database(), to_regclass('draws_draw') IS NOT NULL")
        database, migrated = cursor.fetchone()
        cursor.execute("SELECT 1 FROM pg_database WHERE datname = %s", [template])
        assert cursor.fetchone()
        # Privileges on a database are not copied with it: post_migrate revokes them again.
        cursor.execute("SELECT has_database_privilege(%s, current_database(), 'TEMPORARY')", [settings.DB_APP_ROLE])
        (app_may_make_temporary_tables,) = cursor.fetchone()
    assert template == template_db.PREFIX + template_db.fingerprint()
    assert database != template and migrated
    assert not app_may_make_temporary_tables


def test_the_name_changes_with_the_code_migrate_runs_and_not_with_a_test(tmp_path, monkeypatch):
    monkeypatch.setattr(template_db, "ROOT", tmp_path)
    migration = tmp_path / "draws" / "migrations" / "0001_initial.py"
    migration.parent.mkdir(parents=True)
    migration.write_text("operations = []\n")
    first = template_db.fingerprint()

    (tmp_path / "draws" / "tests").mkdir()
    (tmp_path / "draws" / "tests" / "test_x.py").write_text("def test(): pass\n")
    assert template_db.fingerprint() == first

    migration.write_text("operations = ['a trigger']\n")
    assert template_db.fingerprint() != first
