"""Idempotency-Key (CONTRACT 6), all of it: the header, the keyed fingerprint of the body, and the record that
replays the first response for 24 hours. A concurrent retry blocks on the (company, key) unique index until the
first request commits, then replays its stored response."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import IntegrityError, transaction

from accounts.models import Company
from transactions.models import IdempotencyRecord, Transaction
from vault import crypto
from vault.errors import ApiError, Conflict, IdempotencyKeyReused

IDEMPOTENCY_HEADER = "Idempotency-Key"
IDEMPOTENCY_WINDOW_HOURS = 24
IDEMPOTENCY_MISMATCH = "Idempotency-Key was already used with a different request body"
IDEMPOTENCY_ATTEMPTS = 3
# In the canonical body a card or account number is its keyed hash and the cvv is left out: the fingerprint is
# stored for 24 h, and the CVV may not be kept in any form after authorization (PCI DSS 3.3.1).
FINGERPRINT_REPLACED = {"cardNumber": crypto.card_number_hash, "accountNumber": crypto.account_number_hash}
FINGERPRINT_LEFT_OUT = frozenset({"cvv"})


@dataclass(frozen=True)
class ChargeResult:
    status_code: int
    record: dict[str, Any]
    replayed: bool = False


def idempotency_key(request) -> str:
    key = request.headers.get(IDEMPOTENCY_HEADER, "")
    if len(key) > 255 or (IDEMPOTENCY_HEADER in request.headers and not key.strip()):
        raise ApiError("Idempotency-Key must be 1 to 255 characters", field=IDEMPOTENCY_HEADER)
    return key


def request_fingerprint(data: object) -> str:
    """The keyed fingerprint an Idempotency-Key compares (CONTRACT 6) of a validated charge body."""
    body = dict(data) if isinstance(data, dict) else data
    details = body.get("paymentDetails") if isinstance(body, dict) else None
    if isinstance(details, dict):
        body["paymentDetails"] = {
            name: FINGERPRINT_REPLACED[name](value)
            if name in FINGERPRINT_REPLACED and isinstance(value, str)
            else value
            for name, value in details.items()
            if name not in FINGERPRINT_LEFT_OUT
        }
    return crypto.request_fingerprint(json.dumps(body, sort_keys=True, separators=(",", ":")))


def idempotent(
    *,
    company: Company,
    key: str,
    request_hash: str,
    now: datetime,
    charge: Callable[[], tuple[Transaction, dict[str, Any]]],
) -> ChargeResult:
    """`charge()` (the transaction and the record answered) once per key: the key's record is inserted first,
    inside the same transaction as the charge, and stores the exact body answered (JSON text: jsonb would
    reorder the keys, and a replay must be the same bytes)."""
    for _ in range(IDEMPOTENCY_ATTEMPTS):
        with transaction.atomic():
            try:
                with transaction.atomic():
                    entry = IdempotencyRecord.objects.create(
                        company=company, key=key, request_hash=request_hash, created_at=now
                    )
            except IntegrityError:
                replay = _replay(company=company, key=key, request_hash=request_hash, now=now)
                if replay is None:
                    continue  # the first holder rolled back or its record expired: take the key
                return replay
            txn, record = charge()
            entry.transaction, entry.response_status, entry.response_body = txn, 201, json.dumps(record)
            entry.save(update_fields=["transaction", "response_status", "response_body"])
            return ChargeResult(entry.response_status, record)
    raise Conflict("Idempotency-Key is in use by a concurrent request; retry", field=IDEMPOTENCY_HEADER)


def _replay(*, company: Company, key: str, request_hash: str, now: datetime) -> ChargeResult | None:
    existing = IdempotencyRecord.objects.filter(company=company, key=key).first()
    if existing is None:
        return None
    if existing.created_at < now - timedelta(hours=IDEMPOTENCY_WINDOW_HOURS):
        IdempotencyRecord.objects.filter(pk=existing.pk, created_at=existing.created_at).delete()
        return None
    if existing.request_hash != request_hash:
        raise IdempotencyKeyReused(IDEMPOTENCY_MISMATCH)
    return ChargeResult(existing.response_status, json.loads(existing.response_body), replayed=True)
