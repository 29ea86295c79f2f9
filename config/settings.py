"""Settings, read once from the environment (CONTRACT 1). No production secret has a default."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import dj_database_url

from vault.env import env_bool, env_choice, env_int, env_list, env_rate, env_str, fernet_keys, proxy_ssl_header, secret
from vault.records import DATETIME_FORMAT

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("VAR_DIR", str(BASE_DIR / "var")))

DEBUG = env_bool("DEBUG", False)
SECRET_KEY = secret("SECRET_KEY", DEBUG, VAR_DIR, minimum_length=32)
FIELD_ENCRYPTION_KEYS = fernet_keys("FIELD_ENCRYPTION_KEYS", secret("FIELD_ENCRYPTION_KEYS", DEBUG, VAR_DIR))
BLIND_INDEX_KEY = secret("BLIND_INDEX_KEY", DEBUG, VAR_DIR, minimum_length=32)
JWT_SIGNING_KEY = secret("JWT_SIGNING_KEY", DEBUG, VAR_DIR, minimum_length=32)
# Keys the stored fingerprint of an idempotent request: without it, a fingerprint is a guessable hash of the body.
IDEMPOTENCY_HASH_KEY = secret("IDEMPOTENCY_HASH_KEY", DEBUG, VAR_DIR, minimum_length=32)

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "testserver"] if DEBUG else [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework_simplejwt.token_blacklist",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI and ReDoc assets, served from our own static files (no CDN)
    "simple_history",
    "accounts",
    "ledger",  # the books: entries, postings, balances (below transactions, which posts)
    "idempotency",  # the Idempotency-Key record every creating route replays (plumbing under the domain apps)
    "customers",
    "payments",
    "mandates",
    "transactions",
    "schedules",
    "reporting",
    "sampledata",  # seed_transactions: sample rows for the demo, the benches and tests
    "events",
    "bank",
    "reconciliation",  # bank statements and the payments the service expects on them (CONTRACT 19)
    "vault",  # the plumbing library (imports no app): the API docs' template
    "config",  # the project package: settings, urls, wsgi and bootstrap_demo (it wires every app)
    "django_tasks",
    "django_tasks_db",
    "django_prometheus",
    "monitoring",
    "backoffice",  # last: its admin brands the site and hides the libraries' models registered before it
]

MIDDLEWARE = [
    "django_prometheus.middleware.PrometheusBeforeMiddleware",  # first and last: request latencies for /metrics
    "vault.middleware.RequestIdMiddleware",
    "vault.middleware.DebugJsonNotFoundMiddleware",
    "vault.middleware.RequestBodyLimitMiddleware",
    "monitoring.middleware.HealthProbeHostMiddleware",  # /health for a probe calling by 127.0.0.1 or its own host
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "simple_history.middleware.HistoryRequestMiddleware",
    "vault.middleware.BackOfficeEasternTimeMiddleware",
    "django_prometheus.middleware.PrometheusAfterMiddleware",
]

# Largest request body accepted (413 above it, vault/middleware.py); Django's own limit on request.body matches it.
MAX_REQUEST_BODY_BYTES = env_int("MAX_REQUEST_BODY_BYTES", 1024 * 1024, minimum=1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = MAX_REQUEST_BODY_BYTES
# Routes that take a file in their JSON body, with their own limit: a mandate's evidence (5 MB as base64, CONTRACT 14).
LARGER_BODY_ROUTES = ((r"/customers/[0-9a-fA-F-]{36}/mandates", max(MAX_REQUEST_BODY_BYTES, 7 * 1024 * 1024 + 65536)),)

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
APPEND_SLASH = False

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "vault" / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASE_URL = env_str("DATABASE_URL", f"sqlite:///{VAR_DIR / 'vault.sqlite3'}")
DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=60, conn_health_checks=False)}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"]["OPTIONS"] = {"timeout": 20, "transaction_mode": "IMMEDIATE"}
REPORTING_DATABASE_URL = env_str("REPORTING_DATABASE_URL")
if REPORTING_DATABASE_URL:
    DATABASES["reporting"] = dj_database_url.parse(REPORTING_DATABASE_URL, conn_max_age=60)
    # A stopped or unreachable replica fails the connection within this many seconds (503 with Retry-After), so a
    # report never hangs on it.
    DATABASES["reporting"]["OPTIONS"] = {
        "connect_timeout": int(env_str("REPORTING_CONNECT_TIMEOUT", "3")),
        **DATABASES["reporting"].get("OPTIONS", {}),
    }
    # Tests create no database on the replica: the alias mirrors the primary's test database (tests/conftest.py
    # points it back at a real streaming replica, which has that database too).
    DATABASES["reporting"]["TEST"] = {"MIRROR": "default"}
# `transaction` when the database URLs point at pgbouncer in transaction mode (CONTRACT 8): consecutive
# transactions of one connection may run on different server connections, so psycopg must not prepare statements
# (pgbouncer 1.18 does not track them), and a `.iterator()` outside a transaction must not leave a WITH HOLD cursor
# on one server connection to be fetched from another (Django's setting for this; the PostgreSQL CSV export is a
# COPY, not a cursor, so nothing large is read through one).
DATABASE_POOL_MODE = env_str("DATABASE_POOL_MODE", "")
if DATABASE_POOL_MODE == "transaction":
    for _alias in DATABASES.values():
        if _alias["ENGINE"].endswith("postgresql"):
            _alias["OPTIONS"] = {**_alias.get("OPTIONS", {}), "prepare_threshold": None}
            _alias["DISABLE_SERVER_SIDE_CURSORS"] = True
# Every alias gives up on an unreachable server after DATABASE_CONNECT_TIMEOUT seconds (the replica after its own,
# shorter REPORTING_CONNECT_TIMEOUT): a request answers 503 well within gunicorn's timeout, a command exits with one
# line. In the web process (config/wsgi.py sets VAULT_WEB_PROCESS) the server also cancels any statement running
# longer than WEB_STATEMENT_TIMEOUT_MS (the request is 503, nothing written); commands and the worker have no limit.
# Behind pgbouncer no startup option passes: set it on the role there (ALTER ROLE ... SET statement_timeout).
DATABASE_CONNECT_TIMEOUT = env_int("DATABASE_CONNECT_TIMEOUT", 5, minimum=1)
WEB_STATEMENT_TIMEOUT_MS = env_int("WEB_STATEMENT_TIMEOUT_MS", 30000)
_web_statement_timeout = (
    env_bool("VAULT_WEB_PROCESS", False) and WEB_STATEMENT_TIMEOUT_MS and DATABASE_POOL_MODE != "transaction"
)
# Only the cursors of vault.db.prepared_cursor (the charge's statements) bind on the server and so are prepared, after
# this many runs on a connection; Django's own cursors bind client-side and never are.
DATABASE_PREPARE_THRESHOLD = 5
for _alias in DATABASES.values():
    if _alias["ENGINE"].endswith("postgresql"):
        _alias["OPTIONS"] = {
            "connect_timeout": DATABASE_CONNECT_TIMEOUT,
            "prepare_threshold": DATABASE_PREPARE_THRESHOLD,
            **_alias.get("OPTIONS", {}),
        }
        if _web_statement_timeout:
            _alias["OPTIONS"]["options"] = f"-c statement_timeout={WEB_STATEMENT_TIMEOUT_MS}"
for _alias in DATABASES.values():
    if _alias["ENGINE"] == "django.db.backends.postgresql":
        # Django's backend, grouping by what the (id, company_id) primary keys need (vault/backends/postgresql).
        _alias["ENGINE"] = "vault.backends.postgresql"
DATABASE_ROUTERS = ["vault.db_router.ReportingReplicaRouter"]
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

CACHE_URL = env_str("CACHE_URL")
if CACHE_URL:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": CACHE_URL}}
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.db.DatabaseCache", "LOCATION": "vault_cache"}}
# Per worker process, for figures that may lag by design (a company's totalRows): no round trip to read them.
CACHES["local"] = {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "vault-local"}

AUTH_USER_MODEL = "accounts.User"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True
# The back office's date and time formats name the zone (config/formats/en): its times are Eastern (vault.middleware).
FORMAT_MODULE_PATH = ["config.formats"]

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
OUTBOUND_DIR = VAR_DIR / "outbound"
SANDBOX_DIR = VAR_DIR / "sandbox"  # sandbox companies' NACHA files: never sent to a bank (CONTRACT 13)

SECURE_CONTENT_TYPE_NOSNIFF = True
SESSION_COOKIE_SECURE = not DEBUG
CSRF_COOKIE_SECURE = not DEBUG
X_FRAME_OPTIONS = "DENY"
# Behind TLS in production (DEBUG off): HSTS, and plain HTTP redirected to HTTPS. The proxy header is trusted only
# when set (the proxy in front must overwrite it), as are the origins the admin's CSRF check accepts.
SECURE_HSTS_SECONDS = 0 if DEBUG else env_int("SECURE_HSTS_SECONDS", 365 * 24 * 3600)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", not DEBUG)
SECURE_REDIRECT_EXEMPT = [r"^health$", r"^metrics$"]  # probes and scrapers on the private network speak plain HTTP
SECURE_PROXY_SSL_HEADER = proxy_ssl_header("SECURE_PROXY_SSL_HEADER")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.ApiKeyAuthentication",
        "accounts.authentication.CompanyJWTAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["accounts.permissions.RouteActionPermission"],
    "DEFAULT_THROTTLE_CLASSES": ["accounts.throttles.CredentialAndCompanyThrottle"],
    "DEFAULT_RENDERER_CLASSES": ["vault.envelope.EnvelopeJSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["vault.bounded_json.BoundedJSONParser"],
    "EXCEPTION_HANDLER": "vault.errors.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "vault.openapi.VaultAutoSchema",
    "UNAUTHENTICATED_USER": None,
    "COERCE_DECIMAL_TO_STRING": False,
    "DATETIME_FORMAT": DATETIME_FORMAT,  # vault.records: the one timestamp form
}

SIMPLE_JWT = {
    "ACCESS_TOKEN_LIFETIME": timedelta(minutes=15),
    "REFRESH_TOKEN_LIFETIME": timedelta(days=1),
    "SIGNING_KEY": JWT_SIGNING_KEY,
    "ALGORITHM": "HS256",
    "AUTH_HEADER_TYPES": ("Bearer",),
    "USER_ID_FIELD": "id",
    "USER_ID_CLAIM": "user_id",
    "UPDATE_LAST_LOGIN": False,
    # Refresh rotates (M7): accounts.services.refresh_token_rotate blacklists the token it was given.
    "ROTATE_REFRESH_TOKENS": True,
    "BLACKLIST_AFTER_ROTATION": True,
}

# A Bearer session (a login and every refresh rotated from it) ends this long after the login (N12); the admin's
# session cookie lasts ADMIN_SESSION_SECONDS from sign-in.
JWT_SESSION_MAX_SECONDS = env_int("JWT_SESSION_MAX_SECONDS", 7 * 24 * 3600, minimum=60)
SESSION_COOKIE_AGE = env_int("ADMIN_SESSION_SECONDS", 8 * 3600, minimum=60)

SPECTACULAR_SETTINGS = {
    "TITLE": "Vault payments API",
    "DESCRIPTION": "Customers, saved bank accounts, charges and transaction reporting.\n\n"
    "Limits (README: Limits): a request line (method, path and query) of at most 8190 bytes, else 414 "
    "`uri_too_long`; each header at most 8190 bytes and at most 100 headers, else 431 `header_too_large`; a body "
    "of at most 1 MiB, else 413; API requests per API key (or user) and per company per minute, else 429 "
    "`throttled` with Retry-After. A suspended company is 403 `company_suspended` on every route.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SERVE_PERMISSIONS": ["rest_framework.permissions.AllowAny"],
    "SERVE_AUTHENTICATION": [],
    "COMPONENT_SPLIT_REQUEST": True,
    # One name per choice set, so generated clients get stable enum names.
    "ENUM_NAME_OVERRIDES": {
        "TransactionTypeEnum": "transactions.models.TransactionType",
        "TransactionStatusEnum": "transactions.models.Status",
        "CustomerStatusEnum": "customers.models.Customer.Status",
        "EventTypeEnum": "events.types.EventType",
        "TransactionMethodEnum": "transactions.models.Method",
        "ValidationMethodEnum": "payments.models.PaymentMethod.ValidationMethod",
    },
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "/api/redoc-dist",  # the sidecar's bundle without its CDN badge (vault.views.redoc_bundle)
    # Summaries, descriptions, the Idempotency-Key header and the introduction, from one table.
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "vault.openapi_operations.document_operations",
        "vault.openapi_operations.document_timestamps",
    ],
}

# API throttling (L6, accounts/throttles.py): requests per API key (or per user with a Bearer token) and per company,
# `N/period` with period s, min, hour or day; past either, 429 with Retry-After.
API_THROTTLE_RATE_PER_CREDENTIAL = env_rate("API_THROTTLE_RATE_PER_CREDENTIAL", "1200/min")
API_THROTTLE_RATE_PER_COMPANY = env_rate("API_THROTTLE_RATE_PER_COMPANY", "3000/min")

# Brute-force guard for POST /auth/login and /admin/login/ (accounts/login_throttle.py). First a rate of attempts per
# client address (any outcome), checked before any password is hashed. Then failures counted per (email, client
# address) and per client address: past the pair's limit the pair is locked for 1 minute, then 2, 4, ... at most 15;
# past the address's limit the address is locked for the window.
LOGIN_RATE_PER_ADDRESS = env_rate("LOGIN_RATE_PER_ADDRESS", "10/min")
LOGIN_FAILURE_LIMIT_PER_EMAIL = 5
LOGIN_FAILURE_LIMIT_PER_ADDRESS = 20
LOGIN_FAILURE_WINDOW_SECONDS = 15 * 60
LOGIN_EMAIL_FIRST_LOCK_SECONDS = 60
LOGIN_EMAIL_MAX_LOCK_SECONDS = 15 * 60
# How many X-Forwarded-For entries, counted from the right, our own proxies appended. 0: the client address is
# REMOTE_ADDR (no proxy, or one that cannot be trusted to set the header).
TRUSTED_PROXY_HOPS = env_int("TRUSTED_PROXY_HOPS", 0)

REPORTING_API_VERSION = "1.0"
# CSV exports one company may stream at once (reporting/services.py); the next is 429 with Retry-After.
CSV_EXPORTS_PER_COMPANY = env_int("CSV_EXPORTS_PER_COMPANY", 2, minimum=1)
# CSV exports and export downloads the whole service streams at once (N4): kept below the request slots of
# gunicorn (workers x threads, gunicorn.conf.py) so slow readers can never hold every one.
CSV_EXPORTS_SERVICE_WIDE = env_int("CSV_EXPORTS_SERVICE_WIDE", 4, minimum=1)
# Above this many matching rows a CSV is made by a background export job (POST /reporting/exports), not streamed.
CSV_EXPORT_SYNC_MAX_ROWS = env_int("CSV_EXPORT_SYNC_MAX_ROWS", 100_000, minimum=1)
# How long a finished export job's file can be downloaded.
CSV_EXPORT_FILE_HOURS = env_int("CSV_EXPORT_FILE_HOURS", 1, minimum=1)

ACH_IMMEDIATE_DESTINATION = env_str("ACH_IMMEDIATE_DESTINATION", "091000019")
ACH_IMMEDIATE_DESTINATION_NAME = env_str("ACH_IMMEDIATE_DESTINATION_NAME", "FEDERAL RESERVE BANK")
ACH_IMMEDIATE_ORIGIN = env_str("ACH_IMMEDIATE_ORIGIN", "021000021")
ACH_IMMEDIATE_ORIGIN_NAME = env_str("ACH_IMMEDIATE_ORIGIN_NAME", "VAULT PAYMENTS")
ACH_ORIGINATING_DFI = env_str("ACH_ORIGINATING_DFI", "02100002")
# The sandbox's own trace space (its files never go to a bank, and a bank's file never names its entries).
SANDBOX_ORIGINATING_DFI = env_str("SANDBOX_ORIGINATING_DFI", "09999999")
# Trace sequences continue across days and wrap after this number (a trace number is reused as late as possible).
ACH_TRACE_SEQUENCE_LAST = 9_999_999
# How many companies `settle` moves at once on PostgreSQL, each on its own connection (1: one after another).
SETTLE_WORKERS = env_int("SETTLE_WORKERS", 2, minimum=1)
# How many companies `originate` batches at once on PostgreSQL, each on its own connection (1: one after another).
ORIGINATE_WORKERS = env_int("ORIGINATE_WORKERS", 2, minimum=1)
# How many processes `import_returns` forks on PostgreSQL to apply companies' returns at once (1: none).
IMPORT_RETURNS_WORKERS = env_int("IMPORT_RETURNS_WORKERS", 2, minimum=1)
# `import_returns` reads at most this many bytes of a file and refuses a larger one.
IMPORT_RETURNS_MAX_BYTES = int(env_str("IMPORT_RETURNS_MAX_BYTES", str(64 * 1024 * 1024)))

# The bank connection (CONTRACT 16, bank/): files go to the ODFI and come back over SFTP. Unset BANK_SFTP_URL: the
# bank commands say so and exit 1. The host key is pinned (never trusted on first use); secrets may be `_FILE`s.
BANK_SFTP_URL = env_str("BANK_SFTP_URL")
BANK_SFTP_PASSWORD = env_str("BANK_SFTP_PASSWORD")
BANK_SFTP_KEY_FILE = env_str("BANK_SFTP_KEY_FILE")
BANK_SFTP_HOST_KEY = env_str("BANK_SFTP_HOST_KEY")
BANK_OUTBOUND_DIR = env_str("BANK_OUTBOUND_DIR", "to-bank")
BANK_INBOUND_DIR = env_str("BANK_INBOUND_DIR", "from-bank")
BANK_ACK_TIMEOUT_MINUTES = env_int("BANK_ACK_TIMEOUT_MINUTES", 60, minimum=1)
BANK_SFTP_TIMEOUT_SECONDS = env_int("BANK_SFTP_TIMEOUT_SECONDS", 30, minimum=1)
# A file's entries settle once the bank accepted it; a bank that sends no acknowledgements is said so here (0).
BANK_SENDS_ACKNOWLEDGEMENTS = env_bool("BANK_SENDS_ACKNOWLEDGEMENTS", True)
INBOUND_DIR = VAR_DIR / "inbound"  # the bank's files as fetched (0600), before and after they are applied
# The account number of our settlement account at the ODFI (CONTRACT 19): a bank statement of any other account is
# set aside. Unset: no statement is read.
BANK_SETTLEMENT_ACCOUNT = env_str("BANK_SETTLEMENT_ACCOUNT")

# Events and webhooks (CONTRACT 9). Background work goes through Django's tasks interface; the database backend
# needs no broker (`python manage.py run_worker`); a large deployment points TASKS at an RQ or Celery backend.
TASKS = {"default": {"BACKEND": env_str("TASKS_BACKEND", "django_tasks_db.DatabaseBackend")}}
# A task row RUNNING this long after its claim lost its worker (killed, or cut off from the database): the next
# worker pass makes it ready again. Longer than any task runs (a webhook wake-up sends what is due, batch by batch).
TASK_LEASE_SECONDS = env_int("TASK_LEASE_SECONDS", 300, minimum=1)
# `run_worker` waits out a database outage, retrying after 0.5 s, 1 s, 2 s, ... up to this many seconds.
WORKER_BACKOFF_MAX_SECONDS = env_int("WORKER_BACKOFF_MAX_SECONDS", 30, minimum=1)
# Development (DEBUG) allows http and local receivers by default; production never unless said.
WEBHOOK_ALLOW_PRIVATE_URLS = env_bool("WEBHOOK_ALLOW_PRIVATE_URLS", DEBUG)
WEBHOOK_TIMEOUT_SECONDS = env_int("WEBHOOK_TIMEOUT_SECONDS", 10)
# A webhook host's name must resolve within this many seconds (endpoint save and every delivery).
WEBHOOK_DNS_TIMEOUT_SECONDS = env_int("WEBHOOK_DNS_TIMEOUT_SECONDS", 3, minimum=1)
# Fan-out caps (N5): live endpoints per company (each URL once), and events replayed per company per day.
WEBHOOK_ENDPOINTS_PER_COMPANY = env_int("WEBHOOK_ENDPOINTS_PER_COMPANY", 16, minimum=1)
WEBHOOK_REPLAY_EVENTS_PER_DAY = env_int("WEBHOOK_REPLAY_EVENTS_PER_DAY", 10_000, minimum=1)
# Fair delivery (N6): sends run on this many threads per worker, one delivery in flight per endpoint; after
# WEBHOOK_BREAKER_FAILURES failures in a row an endpoint's circuit opens for WEBHOOK_BREAKER_OPEN_SECONDS
# (doubling with each failed trial, up to WEBHOOK_BREAKER_MAX_OPEN_SECONDS), then one trial delivery is sent.
WEBHOOK_SEND_THREADS = env_int("WEBHOOK_SEND_THREADS", 8, minimum=1)
WEBHOOK_BREAKER_FAILURES = env_int("WEBHOOK_BREAKER_FAILURES", 5, minimum=1)
WEBHOOK_BREAKER_OPEN_SECONDS = env_int("WEBHOOK_BREAKER_OPEN_SECONDS", 60, minimum=1)
WEBHOOK_BREAKER_MAX_OPEN_SECONDS = env_int("WEBHOOK_BREAKER_MAX_OPEN_SECONDS", 3600, minimum=1)
# A claimed delivery is this worker's for this long; it must outlast one request (connect + read timeouts).
WEBHOOK_LEASE_SECONDS = env_int("WEBHOOK_LEASE_SECONDS", 60)
# Seconds before each retry after failed attempt 1, 2, ... (Standard Webhooks' schedule, about 75 h in all),
# each stretched by up to 20% of jitter; when it runs out the delivery is given up.
WEBHOOK_RETRY_DELAYS = (5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400)
WEBHOOK_DISABLE_AFTER_DAYS = 5
WEBHOOK_PREVIOUS_SECRET_HOURS = 24
EVENT_RETENTION_DAYS = 30

# LOG_FORMAT=json: one JSON object per line (time, level, logger, message, and exc_info for errors).
LOG_FORMAT = env_choice("LOG_FORMAT", ("plain", "json"), "plain")
# /health and /metrics: the age past which a due webhook delivery means no worker runs (503); who may scrape.
# Hosts a probe may call GET /health by besides ALLOWED_HOSTS and loopback (a load balancer that calls by the
# machine's own address): monitoring/middleware.py.
HEALTH_PROBE_HOSTS = env_list("HEALTH_PROBE_HOSTS")
HEALTH_QUEUE_MAX_AGE_SECONDS = env_int("HEALTH_QUEUE_MAX_AGE_SECONDS", 600, minimum=1)
METRICS_TOKEN = env_str("METRICS_TOKEN")
# Without a token /metrics answers nobody, unless an operator opts in to loopback callers (a proxy or sidecar on the
# machine makes every caller look local: security review 2026-12-02 L-2).
METRICS_ALLOW_LOOPBACK = env_bool("METRICS_ALLOW_LOOPBACK", False)
METRICS_CACHE_SECONDS = env_int("METRICS_CACHE_SECONDS", 15, minimum=0)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"},
        "json": {
            "()": "pythonjsonlogger.json.JsonFormatter",
            "format": "%(asctime)s %(levelname)s %(name)s %(message)s",
            "rename_fields": {"asctime": "time", "levelname": "level", "name": "logger"},
        },
    },
    "filters": {
        "database_outage_in_one_line": {"()": "vault.log_filters.DatabaseOutageInOneLine"},
        "forbidden_in_one_line": {"()": "vault.log_filters.ForbiddenInOneLine"},
    },
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": LOG_FORMAT}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    # Each task's start and finish at INFO would be two lines per webhook wake-up: run_worker writes a summary of
    # its work once a minute instead (events/worker.py); a failed task is still logged, at ERROR. "django" loses the
    # console handler Django adds with DEBUG: its records reach the root handler, in LOG_FORMAT.
    "loggers": {
        "django": {"handlers": [], "level": "INFO"},
        "django.db.backends": {"level": "WARNING"},
        "django.request": {"filters": ["forbidden_in_one_line"]},
        "django_tasks": {"level": "WARNING", "filters": ["database_outage_in_one_line"]},
    },
}
