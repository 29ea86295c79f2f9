"""Guard for commands that make demo or sample data (a published password, made-up charges): they run where
DEBUG is on, and elsewhere only when the operator says so explicitly."""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import CommandError

ALLOW_PRODUCTION_FLAG = "--allow-production"


def add_allow_production_argument(parser) -> None:
    parser.add_argument(
        ALLOW_PRODUCTION_FLAG,
        action="store_true",
        help="run even though DEBUG is off (the data it makes is not real)",
    )


def require_debug_or_allowed(options: dict, *, makes: str) -> None:
    if not settings.DEBUG and not options.get("allow_production"):
        raise CommandError(f"DEBUG is off: this command makes {makes}; pass {ALLOW_PRODUCTION_FLAG} to run it anyway")
