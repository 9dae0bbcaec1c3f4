"""Settings for the promotions desk back-office, driven by the environment.

APP_ENV chooses the mode:
- ``production`` (the default): refuses to start without SECRET_KEY and ALLOWED_HOSTS.
- ``development``: what ``make run`` uses; SQLite and kombu's filesystem broker under var/
  unless DATABASE_URL / CELERY_BROKER_URL say otherwise.
- ``test``: what ``make test`` uses; PostgreSQL only (concurrency tests need real locks).
"""

import datetime as dt
import ipaddress
import os
import sys
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("VAR_DIR", BASE_DIR / "var"))


def env_str(name: str, default: str | None = None) -> str | None:
    value = os.environ.get(name)
    return default if value in (None, "") else value


def env_bool(name: str, default: bool = False) -> bool:
    value = env_str(name)
    if value is None:
        return default
    if value.lower() in ("1", "true", "yes", "on"):
        return True
    if value.lower() in ("0", "false", "no", "off"):
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (1/0, true/false), got {value!r}")


def env_int(name: str, default: int) -> int:
    value = env_str(name)
    if value is None:
        return default
    try:
        return int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be an integer, got {value!r}") from None


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in (env_str(name, default) or "").split(",") if item.strip()]


# pytest imports the settings before any conftest can set the environment.
APP_ENV = env_str("APP_ENV") or ("test" if "pytest" in sys.modules else "production")
if APP_ENV not in ("production", "development", "test"):
    raise ImproperlyConfigured(f"APP_ENV must be production, development or test, got {APP_ENV!r}")
PRODUCTION = APP_ENV == "production"
TESTING = APP_ENV == "test"

DEBUG = env_bool("DEBUG", False)

SECRET_KEY = env_str("SECRET_KEY")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS")
# The key of every prize letter's verification code (prizes.letter_codes: HMAC-SHA256 over the
# letter's fields). Its own secret, not SECRET_KEY: rotating the session key must not make every
# letter in the winners' hands fail at the cash desk, and whoever knows it can forge a letter.
PRIZE_LETTER_SECRET = env_str("PRIZE_LETTER_SECRET")
if PRODUCTION:
    missing = [
        name
        for name, value in (
            ("SECRET_KEY", SECRET_KEY),
            ("ALLOWED_HOSTS", ALLOWED_HOSTS),
            ("PRIZE_LETTER_SECRET", PRIZE_LETTER_SECRET),
        )
        if not value
    ]
    if missing:
        raise ImproperlyConfigured(
            f"Production mode needs {', '.join(missing[:-1]) + ' and ' if len(missing) > 1 else ''}{missing[-1]} "
            "in the environment (set APP_ENV=development for a local run)."
        )
else:
    SECRET_KEY = SECRET_KEY or "insecure-key-for-development-and-tests-only"
    # Fixed outside production: a test's expected code, and a demo letter, stay the same every run.
    PRIZE_LETTER_SECRET = PRIZE_LETTER_SECRET or "insecure-prize-letter-key-for-development-and-tests-only"
    ALLOWED_HOSTS = ALLOWED_HOSTS or ["localhost", "127.0.0.1", "[::1]", "testserver"]
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "core.admin_site.AdminConfig",  # django.contrib.admin, guarding secret fields (core.secrets)
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "crispy_forms",
    "crispy_bootstrap5",
    "core",
    "members",
    "promotions",
    "draws",
    "proxies",
    "prizes",
    "records",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "core.swipe.SwipeInQueryMiddleware",  # a raw card swipe in an address is cut to its card number
    "core.middleware.ContentSecurityPolicyMiddleware",
    "draws.api_errors.ApiErrorMiddleware",  # every /api/ error as JSON {"code", "detail"}
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.auth.middleware.LoginRequiredMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Turns a sign-in refused by the throttle (core.throttle) into the "paused" page.
    "core.throttle_views.SignInPauseMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "core.context_processors.navigation",
            ],
        },
    },
]

# --- Database ------------------------------------------------------------------------------
_default_db = {
    "development": f"sqlite:///{VAR_DIR / 'promodesk.sqlite3'}",
    # `postgres`, which every cluster has: `makemigrations --check` in make test reads the migration
    # history from it without a warning; the suite itself makes test_promodesk (below).
    "test": "postgres://postgres@127.0.0.1:5432/postgres",
    "production": None,
}[APP_ENV]
_database_url = env_str("DATABASE_URL", _default_db)
if not _database_url:
    raise ImproperlyConfigured("Production mode needs DATABASE_URL (postgres://user:pass@host:5432/name).")
# Production runs two PostgreSQL roles (README, "Production"): the owner of the tables, which
# only `manage.py migrate` uses (MIGRATION_DATABASE_URL), and DB_APP_ROLE, which owns nothing
# and may only read and append to the audit log; DATABASE_URL connects web, worker and beat as it.
_migration_database_url = env_str("MIGRATION_DATABASE_URL")
if _migration_database_url and sys.argv[1:2] == ["migrate"]:
    _database_url = _migration_database_url
DB_APP_ROLE = env_str("DB_APP_ROLE", "promodesk_app")

# The software named in a draw's record (DRAWS.md §6), stored when the draw starts: a release or
# commit set by the deployment; when unset, draws.version reads the checkout's .git/HEAD.
PROMODESK_VERSION = env_str("PROMODESK_VERSION", "")
DATABASES = {"default": dj_database_url.parse(_database_url, conn_max_age=env_int("DB_CONN_MAX_AGE", 60))}
# Django's PostgreSQL backend, its health check asking the server only when it has spoken (core/postgresql).
POSTGRES_ENGINE = "core.postgresql"
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    DATABASES["default"]["ENGINE"] = POSTGRES_ENGINE
# PostgreSQL restarted (or a connection cut by a proxy or failover): each request or task checks
# its kept connection before first use and opens a new one, instead of failing on the dead one.
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
# Behind PgBouncer in transaction mode (docs/scaling.md): a streamed export's server-side cursor
# (QuerySet.iterator(), declared WITH HOLD outside a transaction) would be fetched on another
# server connection, where it does not exist. On: plain cursors, each result held in the process.
DATABASES["default"]["DISABLE_SERVER_SIDE_CURSORS"] = env_bool("DB_DISABLE_SERVER_SIDE_CURSORS", False)
# The activation's hot statements are prepared on the server (core.prepared). psycopg prepares
# only on a connection with a prepare threshold, and only in core.prepared's cursors: Django's
# own cursors bind on the client and never prepare, so a very high threshold changes nothing else.
# Off (0) behind a pooler that cannot keep prepared statements (docs/scaling.md).
DB_PREPARED_STATEMENTS = env_bool("DB_PREPARED_STATEMENTS", True)
if DATABASES["default"]["ENGINE"] == POSTGRES_ENGINE and DB_PREPARED_STATEMENTS:
    DATABASES["default"].setdefault("OPTIONS", {})["prepare_threshold"] = 2**31 - 1
if env_str("TEST_DATABASE_NAME"):  # two test runs side by side (make test's clock runs), each its own
    DATABASES["default"]["TEST"] = {"NAME": env_str("TEST_DATABASE_NAME")}
elif TESTING:  # whatever DATABASE_URL names (postgres by default): not test_postgres
    DATABASES["default"]["TEST"] = {"NAME": "test_promodesk"}
if TESTING and DATABASES["default"]["ENGINE"] != POSTGRES_ENGINE:
    raise ImproperlyConfigured("The test suite runs on PostgreSQL only; DATABASE_URL must be postgres://...")
if TESTING:
    # A test's commits need not wait for the disk (the suite's databases are thrown away; a
    # server restarted in a test stops with `-m fast`, which writes everything first): 8-10% off
    # a database-heavy set of tests on this machine. Production keeps PostgreSQL's synchronous commit.
    DATABASES["default"].setdefault("OPTIONS", {})["options"] = "-c synchronous_commit=off"
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # The web server, the worker and beat all write: wait for the lock rather than fail at once.
    # WAL: readers never wait for a writer (a desk lookup during an import), and a writer
    # waits only for the short transaction in progress (imports write chunk by chunk).
    DATABASES["default"]["OPTIONS"] = {
        "timeout": 20,
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL",
    }
    DATABASES["default"]["CONN_MAX_AGE"] = 0
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Caches (import progress is shared between the worker and the web server) --------------
_redis_url = env_str("REDIS_URL") or (
    env_str("CELERY_BROKER_URL") if (env_str("CELERY_BROKER_URL") or "").startswith("redis") else None
)
if _redis_url:
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    # Redis down: a page answers without its cache (core.cache), at once: one try, short timeouts.
    CACHES = {
        "default": {
            "BACKEND": "core.cache.ForgivingRedisCache",
            "LOCATION": _redis_url,
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 2, "retry": Retry(NoBackoff(), 0)},
        }
    }
elif TESTING:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(VAR_DIR / "cache"),
        }
    }

# --- Auth, sessions, security --------------------------------------------------------------
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": 10}},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
if TESTING:
    PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# Login throttling (core.throttle, whose docstring has the whole rule): LOGIN_FAILURE_LIMIT wrong
# passwords within LOGIN_COOLOFF pause that username at that address for LOGIN_COOLOFF; from
# addresses the account has never signed in from, they pause it (or the address, for accounts
# that never signed in there) for LOGIN_SHORT_PAUSE only. A sign-in clears only its own account's
# failures at its own address. The password-change page: LOGIN_FAILURE_LIMIT wrong current
# passwords pause it for the account for LOGIN_COOLOFF.
AUTHENTICATION_BACKENDS = [
    "core.auth.LoginThrottleBackend",
    "django.contrib.auth.backends.ModelBackend",
]
LOGIN_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 5)
LOGIN_COOLOFF = dt.timedelta(minutes=env_int("LOGIN_COOLOFF_MINUTES", 15))
LOGIN_SHORT_PAUSE = dt.timedelta(seconds=env_int("LOGIN_SHORT_PAUSE_SECONDS", 60))
# Addresses whose clients follow no redirect: a card swipe in such an address is answered 400
# (core.swipe), not sent on to the clean address.
SWIPE_REFUSED_PREFIXES = ("/api/",)
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

# A desk terminal left alone logs itself out: every request renews the timer.
SESSION_COOKIE_AGE = env_int("SESSION_IDLE_SECONDS", 30 * 60)
SESSION_SAVE_EVERY_REQUEST = True
# The database backend, but a lost connection while saving is a 500, not a 400 (core/sessions.py).
SESSION_ENGINE = "core.sessions"
SESSION_EXPIRE_AT_BROWSER_CLOSE = True
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
if PRODUCTION:
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    # A year, as browsers' preload lists expect; 0 switches HSTS off (e.g. while trying TLS out).
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 365 * 24 * 60 * 60)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
# Container healthchecks ask over plain HTTP inside the host (core.health_views): answered, not redirected.
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]

# Every response carries it (core.middleware.ContentSecurityPolicyMiddleware): scripts and styles
# only from our own static files, so injected markup cannot run or restyle anything.
CONTENT_SECURITY_POLICY = env_str(
    "CONTENT_SECURITY_POLICY",
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; "
    "base-uri 'self'; form-action 'self'; frame-ancestors 'none'",
)

# X-Forwarded-For is believed only from these addresses or networks (the reverse proxy in front
# of gunicorn), comma-separated, e.g. "172.16.0.0/12,10.0.0.5". Empty: the header is ignored.
TRUSTED_PROXIES = env_list("TRUSTED_PROXIES")
for _proxy in TRUSTED_PROXIES:
    try:
        ipaddress.ip_network(_proxy, strict=False)
    except ValueError:
        raise ImproperlyConfigured(f"TRUSTED_PROXIES must list IP addresses or networks, got {_proxy!r}") from None

# --- Locale and time: store UTC, show Johannesburg -----------------------------------------
LANGUAGE_CODE = "en-za"
TIME_ZONE = "Africa/Johannesburg"
USE_I18N = True
USE_TZ = True

# --- Static and uploaded files -------------------------------------------------------------
STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "staticfiles"
MEDIA_ROOT = Path(env_str("MEDIA_ROOT", str(VAR_DIR / "media")))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = not PRODUCTION  # serve straight from static/ without collectstatic locally
DATA_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024  # larger uploads spool to disk, never to memory
IMPORT_MAX_BYTES = env_int("IMPORT_MAX_BYTES", 512 * 1024 * 1024)
# A running import reports every few seconds; one silent this long lost its worker and is
# started again (at most IMPORT_MAX_ATTEMPTS times in all, then failed).
IMPORT_STALE_SECONDS = env_int("IMPORT_STALE_SECONDS", 120)
IMPORT_MAX_ATTEMPTS = env_int("IMPORT_MAX_ATTEMPTS", 3)
# Rejected uploads are deleted after this many days; the job and its error report stay.
IMPORT_KEEP_REJECTED_DAYS = env_int("IMPORT_KEEP_REJECTED_DAYS", 30)

CRISPY_ALLOWED_TEMPLATE_PACKS = "bootstrap5"
CRISPY_TEMPLATE_PACK = "bootstrap5"

# --- Celery --------------------------------------------------------------------------------
# Redis as the broker: redelivery of unacknowledged tasks longer than any import we expect to
# run; connecting and each command give up within seconds when Redis is down or unreachable
# (without them a publish to a silent host waits for the kernel's TCP timeout: minutes).
REDIS_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 3600, "socket_connect_timeout": 2, "socket_timeout": 5}
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL") or "filesystem://"
if CELERY_BROKER_URL == "filesystem://":
    _queue_dir = VAR_DIR / "celery" / "queue"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_queue_dir),
        "data_folder_out": str(_queue_dir),
        "processed_folder": str(VAR_DIR / "celery" / "processed"),
        "control_folder": str(VAR_DIR / "celery" / "control"),
        "store_processed": False,
    }
else:
    CELERY_BROKER_TRANSPORT_OPTIONS = dict(REDIS_BROKER_TRANSPORT_OPTIONS)
# A request that queues work never waits for a broker that is down (core.queueing): one try,
# no publish retries; the row says the work is due and the tick's sweeps send it again.
CELERY_TASK_PUBLISH_RETRY = False
# Publish from a background thread (core.queueing): even without retries, kombu and redis-py
# take seconds to give up on a broker that is down. Off in tests, whose asserts follow the commit.
QUEUE_IN_BACKGROUND = env_bool("QUEUE_IN_BACKGROUND", not TESTING)
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_IGNORE_RESULT = True
CELERY_TIMEZONE = TIME_ZONE
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celery" / "beat-schedule")
TICK_SECONDS = env_int("TICK_SECONDS", 15)
# The app admits an entry only while the gaming-system feed says the member is playing, and
# only if the feed said so recently (a missed "stopped playing" must not leave the door open).
PLAYING_FRESH_MINUTES = env_int("PLAYING_FRESH_MINUTES", 10)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    # A card swipe (it holds a member's name) is masked in every record written (core.swipe):
    # on the handler for every logger, and on the request loggers themselves, before Django's
    # own handlers (its DEBUG console, mail to ADMINS) see their records.
    "filters": {"no_swipes": {"()": "core.swipe.SwipeLogFilter"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain", "filters": ["no_swipes"]}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    # WeasyPrint logs every step of every PDF at INFO.
    "loggers": {
        "weasyprint": {"level": "WARNING"},
        "fontTools": {"level": "WARNING"},
        "django.request": {"filters": ["no_swipes"]},
        "django.server": {"filters": ["no_swipes"]},
    },
}

if not PRODUCTION:
    for _folder in (MEDIA_ROOT, STATIC_ROOT, *(VAR_DIR / "celery" / d for d in ("queue", "processed", "control"))):
        Path(_folder).mkdir(parents=True, exist_ok=True)
