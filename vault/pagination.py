"""Zero-based page/pageSize parsing and the `meta.pagination` block shared by list endpoints."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from django.conf import settings

from vault.envelope import Enveloped
from vault.error_codes import ErrorCode
from vault.errors import ApiError
from vault.records import iso_utc

MAX_PAGE_SIZE = 1000


def _int_param(params: Any, name: str, minimum: int, maximum: int | None, default: int | None) -> int:
    raw = params.get(name)
    if raw in (None, ""):
        if default is None:
            raise ApiError(f"{name} is required", field=name, code=ErrorCode.REQUIRED)
        return default
    # ASCII only: str.isdigit() is also true of "²" (int() refuses it) and "١" (int() reads it as 1).
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 9:
        raise ApiError(f"{name} must be a whole number", field=name, code=ErrorCode.INVALID)
    value = int(raw)
    if value < minimum or (maximum is not None and value > maximum):
        bound = f"between {minimum} and {maximum}" if maximum is not None else f"at least {minimum}"
        raise ApiError(f"{name} must be {bound}", field=name, code=ErrorCode.OUT_OF_RANGE)
    return value


def page_params(
    params: Any, *, required: bool = True, default_size: int = 50, page_required: bool | None = None
) -> tuple[int, int]:
    """(page, pageSize) from query params; both required unless `required` is False (`page_required` overrides it
    for page alone: a cursor takes the place of page)."""
    page_required = required if page_required is None else page_required
    page = _int_param(params, "page", 0, None, None if page_required else 0)
    size = _int_param(params, "pageSize", 1, MAX_PAGE_SIZE, None if required else default_size)
    return page, size


def paginated_body(
    rows: list[Any],
    *,
    page: int | None,
    page_size: int,
    total_filtered: int | None,
    total: int | None,
    extra: dict[str, Any] | None = None,
    data_key: str | None = None,
    meta: dict[str, Any] | None = None,
) -> Enveloped:
    """The one list shape (F13): `data` is the rows (or `{data_key: rows}` where a route's data was an object before,
    as a customer's payment methods), and `meta.pagination` says which page this is and how many rows there are
    (null where a list does not count: events); `extra` adds `nextCursor` where a cursor applies."""
    return Enveloped(
        status="success",
        data={data_key: rows} if data_key else rows,
        errors=None,
        meta={
            "pagination": {
                "page": page,
                "pageSize": page_size,
                "totalFilteredRows": total_filtered,
                "totalRows": total,
                **(extra or {}),
            },
            "timestamp": iso_utc(datetime.now(UTC)),
            "version": settings.REPORTING_API_VERSION,
            **(meta or {}),
        },
    )


def whole_list_body(rows: list[Any], *, data_key: str | None = None) -> Enveloped:
    """A list that is never long (a company's webhook endpoints, a customer's payment methods, a transaction's trail)
    answers every row as page 0 of the common shape."""
    size = len(rows)
    return paginated_body(rows, page=0, page_size=max(size, 1), total_filtered=size, total=size, data_key=data_key)
