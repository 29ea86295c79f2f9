"""Keyset pages for the transaction report (CONTRACT 7 `cursor` / `nextCursor`).

A cursor names the last row of a page by its sort key and id, so the next page starts right after it through the
sort's index: page 5,000 costs what page 1 costs. It is signed (a client cannot forge one) and carries a digest of
the request's filters, columns and sort; a cursor sent with different ones is refused, since its position means
nothing in another order or row set."""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from django.core import signing
from django.db.models import F, Q

from reporting.registry import ReportField
from vault.error_codes import ErrorCode
from vault.errors import ApiError

# Parameters that choose where a page starts, how long it is, or how it is counted: everything else shapes the
# row set or its order and must match between a cursor and the request that follows it.
POSITION_PARAMS = frozenset({"page", "pageSize", "cursor", "count", "format"})
_SALT = "reporting.cursor"


@dataclass(frozen=True)
class SortKey:
    """What a report is ordered by: `path` (None for id alone), its field, and the direction."""

    path: str | None
    field: ReportField | None
    descending: bool

    @property
    def ordering(self) -> list[Any]:
        """ORDER BY: the key, then id in the same direction so pages never repeat or skip a row. Nulls sort last
        ascending and first descending on every database (PostgreSQL's default, so indexes serve)."""
        tie = "-id" if self.descending else "id"
        if self.path is None:
            return [tie]
        key = F(self.path).desc(nulls_first=True) if self.descending else F(self.path).asc(nulls_last=True)
        return [key, tie]


def request_digest(parameters: Iterable[tuple[str, str]], sort: SortKey) -> str:
    """Filters, columns and sort of a request (its query string's (name, value) pairs), independent of parameter
    order and filter-name case."""
    shape = sorted(
        (name.lower(), value)
        for name, value in parameters
        if name not in POSITION_PARAMS and name not in ("sort", "sortDir")
    )
    shape.append(("sort", sort.path or "id", sort.descending))
    return hashlib.sha256(json.dumps(shape).encode()).hexdigest()[:32]


def _plain(value: Any) -> Any:
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, uuid.UUID):
        return str(value)
    return value


def _typed(f: ReportField | None, value: Any) -> Any:
    if value is None or f is None:
        return value
    return f.kind.cursor_value(value)


def encode_cursor(*, digest: str, key: Any, last_id: int) -> str:
    return signing.dumps({"d": digest, "k": _plain(key), "i": last_id}, salt=_SALT)


def decode_cursor(raw: str, *, digest: str, sort: SortKey) -> Q:
    """The condition selecting the rows after the cursor's row, in the request's order."""
    try:
        position = signing.loads(raw, salt=_SALT)
        last_id = int(position["i"])
        key = _typed(sort.field, position["k"])
    except (signing.BadSignature, KeyError, TypeError, ValueError):
        raise ApiError("cursor is not valid", field="cursor", code=ErrorCode.INVALID) from None
    if position.get("d") != digest:
        raise ApiError(
            "cursor was made for other filters, columns or sort; send them unchanged",
            field="cursor",
            code=ErrorCode.INVALID,
        )
    return after(sort, key, last_id)


def after(sort: SortKey, key: Any, last_id: int) -> Q:
    """Rows strictly after (key, id) in the report's order: ties broken by id in the sort's direction, nulls first
    descending and last ascending (SortKey.ordering)."""
    later_id = Q(id__lt=last_id) if sort.descending else Q(id__gt=last_id)
    if sort.path is None:
        return later_id
    path = sort.path
    if key is None:
        same = Q(**{f"{path}__isnull": True}) & later_id
        # Descending puts nulls first, so every non-null key follows; ascending puts them last, so nothing does.
        return same | Q(**{f"{path}__isnull": False}) if sort.descending else same
    beyond = Q(**{f"{path}__lt" if sort.descending else f"{path}__gt": key})
    same = Q(**{path: key}) & later_id
    if sort.descending:
        return beyond | same
    return beyond | same | Q(**{f"{path}__isnull": True})
