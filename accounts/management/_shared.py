"""Shared bits of the ops commands: one JSON object on stdout, CommandError for every bad argument."""

from __future__ import annotations

import argparse
import json
import uuid
from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import CommandError

from accounts.models import Company


def emit(command, payload: dict[str, Any]) -> None:
    command.stdout.write(json.dumps(payload))


def company_by_uuid(raw: str) -> Company:
    try:
        company_uuid = uuid.UUID(raw)
    except (TypeError, ValueError):
        raise CommandError(f"--company must be a company UUID, got {raw!r}") from None
    company = Company.objects.filter(uuid=company_uuid).first()
    if company is None:
        raise CommandError(f"no company with uuid {company_uuid}")
    return company


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
