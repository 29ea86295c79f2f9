"""What every ops command shares: one JSON object on stdout, CommandError for every bad argument, `--at`, the
progress bar on stderr, and the guard of the commands that make demo or sample data."""

from __future__ import annotations

import argparse
import gc
import json
import uuid
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.db.models import Model, QuerySet
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from tqdm import tqdm

ALLOW_PRODUCTION_FLAG = "--allow-production"

# What a long command step reports its chunks through: `progress_for(command)` in a command, else no_progress.
Progress = Callable[..., Iterable]


def no_progress(items: Iterable, **_kwargs) -> Iterable:
    return items


# `requires_system_checks` of the lifecycle commands that timers run every few minutes (originate, settle,
# import_returns): Django's system checks import the URL configuration and with it every view, serializer and the
# OpenAPI machinery, some 140 modules the command never uses, about a tenth of its start. gunicorn never runs them
# either; `manage.py check` (and migrate, runserver, the tests) still do.
LIFECYCLE_SYSTEM_CHECKS: list[str] = []


# Allocations between two runs of the cyclic garbage collector's youngest generation in a bulk command (Python's
# default is 700).
BULK_COLLECTOR_THRESHOLD = 50_000


@contextmanager
def bulk_collector() -> Iterator[None]:
    """For a command that moves entries by the hundred thousand (originate, settle, import_returns): the cyclic
    garbage collector's youngest generation runs every 50,000 allocations rather than every 700. Each run walked the
    chunk's rows, and each full run all of Django's objects too: at 1,000,000 entries the collector took 7.6 s
    of originate's 52 s of Python (0.65 s now), and 1.6 s of import_returns' reading process. Cycles are still
    freed, later; the setting is restored when the block ends (a test calls the command in its own process).
    Nothing is frozen out of the collector here: a frozen object that became garbage would wait for a full
    collection, and a test's unclosed connection with it (the suite's database teardown found one)."""
    threshold = gc.get_threshold()
    gc.set_threshold(BULK_COLLECTOR_THRESHOLD, *threshold[1:])
    try:
        yield
    finally:
        gc.set_threshold(*threshold)


class ScheduledCommand(BaseCommand):
    """A command a timer runs every banking day (or every day): each run that ends without an error is recorded
    (CommandRun), so /metrics can say that one did not run (docs/operations.md, "Health, metrics and logs")."""

    def execute(self, *args, **options):
        output = super().execute(*args, **options)
        command_run_record(type(self).__module__.rsplit(".", 1)[-1])
        return output


def command_run_record(name: str) -> None:
    """A scheduled job's run ended well (its CommandRun row, one per job)."""
    from vault.models import CommandRun  # not at the top: services import this module before the apps are ready

    CommandRun.objects.update_or_create(command=name, defaults={"succeeded_at": timezone.now()})


def emit(command: BaseCommand, payload: dict[str, Any]) -> None:
    command.stdout.write(json.dumps(payload))


def by_uuid(rows: QuerySet, raw: str, *, flag: str) -> Model:
    """The row of `rows` whose uuid `raw` names, for an argument such as `--company`."""
    noun = rows.model._meta.verbose_name
    try:
        wanted = uuid.UUID(raw)
    except (TypeError, ValueError):
        raise CommandError(f"{flag} must be a {noun} UUID, got {raw!r}") from None
    found = rows.filter(uuid=wanted).first()
    if found is None:
        raise CommandError(f"no {noun} with uuid {wanted}")
    return found


def validation_message(exc: ValidationError) -> str:
    if hasattr(exc, "error_dict"):
        return "; ".join(f"{field}: {' '.join(messages)}" for field, messages in exc.message_dict.items())
    return " ".join(exc.messages)


def non_negative_cents(raw: str) -> int:
    """argparse type for amounts in cents."""
    try:
        value = int(raw)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number of cents, got {raw!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative, got {value}")
    return value


def parse_at(value: str | None) -> datetime:
    """ISO 8601 in UTC (`Z`, `+00:00` or no offset); without a value, now."""
    if value is None:
        return timezone.now()
    try:
        parsed = parse_datetime(value.strip())
    except ValueError:
        parsed = None
    if parsed is None:
        raise CommandError(f"--at must be an ISO 8601 timestamp in UTC, e.g. 2026-11-23T15:00:00Z; got {value!r}")
    if parsed.tzinfo is None:
        return parsed.replace(tzinfo=UTC)
    if parsed.utcoffset().total_seconds() != 0:
        raise CommandError(f"--at must be in UTC (Z or +00:00); got {value!r}")
    return parsed.astimezone(UTC)


def add_at_argument(parser) -> None:
    parser.add_argument("--at", help="ISO 8601 UTC timestamp to run as (default: now)")


def add_workers_argument(parser, *, help: str) -> None:
    parser.add_argument("--workers", type=int, default=None, help=help)


def workers_of(options) -> int | None:
    """--workers as given (None: the command's setting decides); fewer than 1 is refused before anything runs."""
    if options["workers"] is not None and options["workers"] < 1:
        raise CommandError("--workers must be 1 or more")
    return options["workers"]


def progress_for(command: BaseCommand):
    """A tqdm bar on stderr when it is a terminal; stdout carries only the JSON line."""

    def progress(items: Iterable, **kwargs) -> Iterable:
        return tqdm(items, disable=None, file=command.stderr._out, leave=False, **kwargs)

    return progress


def add_allow_production_argument(parser) -> None:
    parser.add_argument(
        ALLOW_PRODUCTION_FLAG,
        action="store_true",
        help="run even though DEBUG is off (the data it makes is not real)",
    )


def require_debug_or_allowed(options: dict, *, makes: str) -> None:
    if not settings.DEBUG and not options.get("allow_production"):
        raise CommandError(f"DEBUG is off: this command makes {makes}; pass {ALLOW_PRODUCTION_FLAG} to run it anyway")
