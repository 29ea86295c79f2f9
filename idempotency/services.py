"""Idempotency-Key (CONTRACT 6), all of it: the header, the keyed fingerprint of the body, and the record that
replays the first response for 24 hours, on every POST or PUT that creates (charges, customers, payment methods,
webhook endpoints, validations, retries). The key is taken by INSERT ... ON CONFLICT DO NOTHING: a replay is
found by a lookup, never by a failed INSERT (which would write an ERROR into PostgreSQL's log each time). A
concurrent retry waits on the (company, key) unique index until the first request commits, then replays it."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import connections, models, router, transaction
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter
from rest_framework.response import Response
from rest_framework.utils.encoders import JSONEncoder

from accounts.models import Company
from idempotency.errors import IdempotencyKeyReused
from idempotency.models import IdempotencyRecord
from vault import crypto
from vault.errors import ApiError, Conflict

IDEMPOTENCY_HEADER = "Idempotency-Key"
IDEMPOTENCY_WINDOW_HOURS = 24
IDEMPOTENCY_MISMATCH = "Idempotency-Key was already used with a different request body"
IDEMPOTENCY_ATTEMPTS = 3
IDEMPOTENCY_PARAMETER = OpenApiParameter(
    IDEMPOTENCY_HEADER,
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    description="1 to 255 characters, chosen by the client. A retry with the same key and body within 24 hours gets "
    "the first answer again (header `Idempotent-Replayed: true`) and creates nothing; the same key with another "
    "body, or on another route, is 409.",
)
IDEMPOTENCY_CONFLICT = "Idempotency-Key reused with another body or route, or in use by a concurrent request."
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


def _canonical(value: object) -> object:
    """The body as fingerprinted: card and account numbers keyed-hashed, the cvv left out, at any depth."""
    if isinstance(value, dict):
        return {
            name: FINGERPRINT_REPLACED[name](item)
            if name in FINGERPRINT_REPLACED and isinstance(item, str)
            else _canonical(item)
            for name, item in value.items()
            if name not in FINGERPRINT_LEFT_OUT
        }
    if isinstance(value, list):
        return [_canonical(item) for item in value]
    return value


def request_fingerprint(data: object, *, route: str = "") -> str:
    """The keyed fingerprint an Idempotency-Key compares (CONTRACT 6): of the body, and of the route (method and
    path) for every route but PUT /transactions, so one key sent to another route is another request (409)."""
    canonical = json.dumps(_canonical(data), sort_keys=True, separators=(",", ":"))
    return crypto.request_fingerprint(f"{route}\n{canonical}" if route else canonical)


def idempotent(
    *,
    company: Company,
    key: str,
    request_hash: str,
    now: datetime,
    create: Callable[[], tuple[models.Model | None, dict[str, Any]]],
    status_code: int = 201,
    sealed: Iterable[str] = (),
) -> ChargeResult:
    """`create()` (the transaction made, if any, and the record answered) once per key: the key's record is taken
    first, inside the same transaction as the creation, and stores the exact body answered (JSON text: jsonb would
    reorder the keys, and a replay must be the same bytes). Top-level fields named in `sealed` (a secret shown
    once) are stored encrypted."""
    for _ in range(IDEMPOTENCY_ATTEMPTS):
        with transaction.atomic():
            entry_id = _key_take(company=company, key=key, request_hash=request_hash, now=now)
            if entry_id is None:
                replay = _replay(company=company, key=key, request_hash=request_hash, now=now, sealed=sealed)
                if replay is None:
                    continue  # its record had expired and is gone: take the key
                return replay
            txn, record = create()
            stored = {name: crypto.encrypt(value) if name in sealed else value for name, value in record.items()}
            IdempotencyRecord.objects.filter(pk=entry_id).update(
                transaction=txn, response_status=status_code, response_body=json.dumps(stored)
            )
            return ChargeResult(status_code, record)
    raise Conflict("Idempotency-Key is in use by a concurrent request; retry", field=IDEMPOTENCY_HEADER)


def _key_take(*, company: Company, key: str, request_hash: str, now: datetime) -> int | None:
    """The new record's id, or None when the company already holds `key` (after waiting for an uncommitted holder
    to finish: its commit makes this a replay, its rollback leaves the key to this request)."""
    meta = IdempotencyRecord._meta
    connection = connections[router.db_for_write(IdempotencyRecord)]
    quote = connection.ops.quote_name
    fields = [meta.get_field(name) for name in ("company", "key", "request_hash", "created_at")]
    values = [company.pk, key, request_hash, meta.get_field("created_at").get_db_prep_save(now, connection)]
    # Identifiers from the model, quoted; values are parameters.
    sql = (
        f"INSERT INTO {quote(meta.db_table)} ({', '.join(quote(field.column) for field in fields)}) "  # noqa: S608
        f"VALUES ({', '.join(['%s'] * len(fields))}) "
        f"ON CONFLICT ({quote(fields[0].column)}, {quote(fields[1].column)}) DO NOTHING "
        f"RETURNING {quote(meta.pk.column)}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, values)
        row = cursor.fetchone()
    return None if row is None else row[0]


def _replay(
    *, company: Company, key: str, request_hash: str, now: datetime, sealed: Iterable[str]
) -> ChargeResult | None:
    existing = IdempotencyRecord.objects.filter(company=company, key=key).first()
    if existing is None:
        return None
    if existing.created_at < now - timedelta(hours=IDEMPOTENCY_WINDOW_HOURS):
        IdempotencyRecord.objects.filter(pk=existing.pk, created_at=existing.created_at).delete()
        return None
    if existing.request_hash != request_hash:
        raise IdempotencyKeyReused(IDEMPOTENCY_MISMATCH)
    body = json.loads(existing.response_body)
    body = {name: crypto.decrypt(value) if name in sealed else value for name, value in body.items()}
    return ChargeResult(existing.response_status, body, replayed=True)


def idempotent_response(
    request, *, create: Callable[[], dict[str, Any]], status_code: int = 201, sealed: Iterable[str] = ()
) -> Response:
    """The answer of a creating POST under its Idempotency-Key, if it sent one (CONTRACT 6): `create()` runs once
    per key and body, and a retry within 24 h gets the first answer again (`Idempotent-Replayed: true`); the same
    key with another body, or on another route, is 409. Call it after the body is validated: a request that fails
    stores nothing and leaves its key free."""
    key = idempotency_key(request)
    if not key:
        return Response(_as_stored(create()), status=status_code)
    result = idempotent(
        company=request.company,
        key=key,
        request_hash=request_fingerprint(request.data, route=f"{request.method} {request.path}"),
        now=timezone.now(),
        create=lambda: (None, _as_stored(create())),
        status_code=status_code,
        sealed=tuple(sealed),
    )
    return Response(result.record, status=result.status_code, headers=replayed_headers(result))


def replayed_headers(result: ChargeResult) -> dict[str, str]:
    return {"Idempotent-Replayed": "true"} if result.replayed else {}


def _as_stored(record: dict[str, Any]) -> dict[str, Any]:
    """The record as JSON text gives it back (uuids, dates and decimals as strings): a first answer and its
    replays render from the same values, byte for byte."""
    return json.loads(json.dumps(record, cls=JSONEncoder))


def idempotency_records_purge(*, now: datetime) -> int:
    """Deletes the records past the replay window (a request with such a key is simply a new charge)."""
    expired = IdempotencyRecord.objects.filter(created_at__lt=now - timedelta(hours=IDEMPOTENCY_WINDOW_HOURS))
    deleted, _ = expired.delete()
    return deleted
