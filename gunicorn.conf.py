"""gunicorn settings for every run of the service (`make run`, production). gunicorn reads this file from the
working directory; command-line flags and GUNICORN_CMD_ARGS override it.

The access log names no credential and no query string: gunicorn's default format carries the Basic-auth user
name, which is the API key here (CONTRACT 3), and the raw request line, whose query may hold a full account
number (`accountnumber:eq`). A line is: client, request id, method, path, status, bytes, milliseconds.

Workers are gthread (N4; `ThreadJsonWorker` while GUNICORN_THREADS is over 1): each request runs on one of a
worker's threads, so a client that reads a CSV export slowly holds one thread, not a whole worker, and the
worker's main loop keeps answering gunicorn's heartbeat.
The request slots are workers x threads (default 2 x 4 = 8); CSV_EXPORTS_SERVICE_WIDE (default 4) keeps exports
below them, so other requests always find a free thread."""

import os

wsgi_app = "config.wsgi:application"
# Refusals below in the API's JSON envelope (vault/gunicorn_workers.py), with sync workers or, with threads, gthread.
threads = int(os.environ.get("GUNICORN_THREADS", "4"))  # N4: gthread by default (module docstring)
worker_class = "vault.gunicorn_workers." + ("ThreadJsonWorker" if threads > 1 else "SyncJsonWorker")
# gunicorn's largest request line (8190 bytes; 0 would mean unbounded): a long reporting query fits. Past it 414,
# a header past 8190 bytes or more than 100 headers 431, in the envelope (docs/configuration.md, Limits).
limit_request_line = 8190
limit_request_field_size = 8190
limit_request_fields = 100
bind = os.environ.get("GUNICORN_BIND", "127.0.0.1:8000")
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
timeout = 60
graceful_timeout = 30
keepalive = 5

accesslog = "-"
errorlog = "-"
loglevel = os.environ.get("GUNICORN_LOG_LEVEL", "info")
access_log_format = '%(h)s %({x-request-id}o)s "%(m)s %(U)s" %(s)s %(B)s %(M)sms'

# LOG_FORMAT=json: gunicorn's own and access lines as one JSON object per line, like the service's (settings.py).
if os.environ.get("LOG_FORMAT") == "json":
    _json = {
        "()": "pythonjsonlogger.json.JsonFormatter",
        "format": "%(asctime)s %(levelname)s %(name)s %(message)s",
        "rename_fields": {"asctime": "time", "levelname": "level", "name": "logger"},
    }
    logconfig_dict = {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": _json},
        "handlers": {
            "error_console": {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stderr"},
            "console": {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stdout"},
        },
        "loggers": {
            "gunicorn.error": {"level": loglevel.upper(), "handlers": ["error_console"], "propagate": False},
            "gunicorn.access": {"level": "INFO", "handlers": ["console"], "propagate": False},
        },
    }

# prometheus_client's multiprocess mode (PROMETHEUS_MULTIPROC_DIR): a dead worker's figures are dropped.
if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):

    def child_exit(server, worker):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)
