"""gunicorn's settings, shared by `make run` (Procfile), the Dockerfile and docker-compose.

The access log writes the path without its query string (%(U)s, not %(r)s or %(q)s) and no
referrer: a lookup address must never put a card swipe (which holds the member's name) or an
ID number into a log (SCREENS.md 1; issue 9). A card swipe in the path itself is masked by the
logger class (config/gunicorn_log.py; issue 12)."""

accesslog = "-"
access_log_format = '%(h)s %(l)s %(u)s %(t)s "%(m)s %(U)s %(H)s" %(s)s %(b)s "%(a)s" %(L)s'
logger_class = "config.gunicorn_log.SwipeMaskingLogger"
