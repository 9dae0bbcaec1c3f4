"""gunicorn's settings, shared by `make run` (Procfile), the Dockerfile and docker-compose.

The access log writes the path without its query string (%(U)s, not %(r)s or %(q)s) and no
referrer: a lookup address must never put a card swipe (which holds the member's name) or an
ID number into a log (SCREENS.md 1; issue 9). A card swipe in the path itself is masked by the
logger class (config/gunicorn_log.py; issue 12)."""

accesslog = "-"
access_log_format = '%(h)s %(l)s %(u)s %(t)s "%(m)s %(U)s %(H)s" %(s)s %(b)s "%(a)s" %(L)s'
logger_class = "config.gunicorn_log.SwipeMaskingLogger"


def post_worker_init(worker):
    """Each worker, once it has loaded the application: import every view too, then move all
    those objects out of the garbage collector's reach (gc.freeze). A full collection walked
    ~120,000 long-lived objects (Django, the URL patterns, django-ninja's schemas) and stalled
    the worker and every request it held for 60-80 ms, about once in 9,000 requests; after
    the freeze it walks only what requests have added since (a few thousand)."""
    import gc

    from django.urls import get_resolver

    get_resolver().url_patterns  # noqa: B018 (the URLconf and the views it imports are loaded now)
    gc.freeze()
