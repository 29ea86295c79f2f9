"""Logging filters named in settings.LOGGING (loaded before the apps, so nothing here imports a model)."""

from __future__ import annotations

import logging

from django.db import InterfaceError, OperationalError


class DatabaseOutageInOneLine(logging.Filter):
    """A record whose exception is the database going away (OperationalError, InterfaceError) becomes one WARNING
    line naming the error, without its traceback. On django_tasks' logger: a task cut off by an outage is marked
    FAILED and logged, while the worker's loop waits the outage out and logs it once (events/worker.py); a
    traceback there reads as a bug where there is none."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, (OperationalError, InterfaceError)):
            record.msg = f"{record.getMessage()} (the database went away: {type(exc).__name__})"
            record.args = None
            record.exc_info = record.exc_text = None
            record.levelno, record.levelname = logging.WARNING, logging.getLevelName(logging.WARNING)
        return True


class ForbiddenInOneLine(logging.Filter):
    """django.request logs every PermissionDenied (a staff user opening an admin page their group may not see)
    with its traceback, 25 lines a click (security review 2026-12-02 L-1). A 403 is an answer, not a fault: its
    line ("Forbidden (Permission denied): /admin/...") stays, its traceback goes."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "status_code", None) == 403:
            record.exc_info = record.exc_text = None
        return True
