"""The web server's access log never writes a query string or a referrer (a swipe holds a name)."""

import re
from pathlib import Path

from django.conf import settings

BASE = Path(settings.BASE_DIR)


def test_the_access_log_format_leaves_out_query_strings_and_referrers():
    values: dict = {}
    exec((BASE / "config" / "gunicorn.conf.py").read_text(), values)  # noqa: S102 - our own file
    fmt = values["access_log_format"]
    assert "%(U)s" in fmt
    assert not re.search(r"%\((r|q|f)\)s", fmt)  # request line, query string, referrer


def test_every_way_of_starting_the_web_uses_that_config():
    for path in ("Procfile", "Dockerfile", "docker-compose.yml"):
        text = (BASE / path).read_text()
        assert "config/gunicorn.conf.py" in text, path
        assert "--access-logfile" not in text, path


def test_favicon_ico_is_found_without_signing_in(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 301 and response["Location"].endswith("favicon.ico")


def test_each_worker_puts_what_it_loaded_out_of_the_collectors_reach():
    """post_worker_init freezes the objects a worker has loaded (gc.freeze), so a full collection
    no longer walks them while requests wait."""
    import gc

    values: dict = {}
    exec((BASE / "config" / "gunicorn.conf.py").read_text(), values)  # noqa: S102 - our own file
    assert gc.get_freeze_count() == 0
    tracked = len(gc.get_objects())
    try:
        values["post_worker_init"](None)
        assert gc.get_freeze_count() >= tracked // 2, (gc.get_freeze_count(), tracked)
        assert len(gc.get_objects()) < tracked // 2  # the collector's generations hold only what came after
    finally:
        gc.unfreeze()
    assert gc.get_freeze_count() == 0
