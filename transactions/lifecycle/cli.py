"""Shared bits of the lifecycle management commands: `--at`, the progress bar, the one JSON line."""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import UTC, datetime

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from tqdm import tqdm


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


def progress_for(command: BaseCommand):
    """A tqdm bar on stderr when it is a terminal; stdout carries only the JSON line."""

    def progress(items: Iterable, **kwargs) -> Iterable:
        return tqdm(items, disable=None, file=command.stderr._out, leave=False, **kwargs)

    return progress


def emit(command: BaseCommand, payload: dict) -> None:
    command.stdout.write(json.dumps(payload, sort_keys=False))
