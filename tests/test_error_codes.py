"""One error vocabulary: every machine code comes from vault.error_codes.ErrorCode, never a literal in a module."""

from __future__ import annotations

import re
from pathlib import Path

from customers.errors import CustomerInactive
from idempotency.errors import IdempotencyKeyReused
from payments.errors import PaymentMethodBlocked
from transactions.errors import IncompatibleMethod
from vault.error_codes import ErrorCode
from vault.errors import ApiError, Conflict, InvalidFilter, Throttled, Unauthenticated

ROOT = Path(__file__).resolve().parents[1]
# `code="..."` / `code = "..."` given to an error, or `"code": "..."` in an error body.
LITERAL_CODE = re.compile(r'\bcode\s*=\s*"[a-z_]+"|"code"\s*:\s*"[a-z_]+"')


def test_no_module_spells_an_error_code_itself():
    offenders = []
    for path in sorted(ROOT.rglob("*.py")):
        relative = path.relative_to(ROOT)
        if relative.parts[0] in {".venv", "tests", "var", "bench"} or "migrations" in relative.parts:
            continue
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            if LITERAL_CODE.search(line):
                offenders.append(f"{relative}:{number}")
    assert offenders == []


def test_the_scan_sees_a_literal_code():
    assert LITERAL_CODE.search('raise ApiError("x", code="invalid")')
    assert LITERAL_CODE.search('[{"field": None, "code": "error", "message": m}]')
    assert not LITERAL_CODE.search("raise ApiError('x', code=ErrorCode.INVALID)")


def test_named_errors_carry_their_code_status_and_field():
    cases = [
        (CustomerInactive("customer is inactive"), 400, ErrorCode.CUSTOMER_INACTIVE, "customerUuid"),
        (IncompatibleMethod("m"), 400, ErrorCode.INCOMPATIBLE_METHOD, "method"),
        (PaymentMethodBlocked("b"), 400, ErrorCode.PAYMENT_METHOD_BLOCKED, "paymentMethodUuid"),
        (PaymentMethodBlocked("b", status=409), 409, ErrorCode.PAYMENT_METHOD_BLOCKED, "paymentMethodUuid"),
        (IdempotencyKeyReused("r"), 409, ErrorCode.IDEMPOTENCY_KEY_REUSED, "Idempotency-Key"),
        (Unauthenticated("no"), 401, ErrorCode.AUTHENTICATION_FAILED, None),
    ]
    for error, status, code, field in cases:
        assert isinstance(error, ApiError)
        assert (error.status, error.errors) == (status, [{"field": field, "code": code, "message": error.message}])
        assert type(error.errors[0]["code"]) is str  # plain text on the wire and in logs
    assert isinstance(IdempotencyKeyReused("r"), Conflict)
    unknown = InvalidFilter("invalid filter", field="amout:gte", known=["amount"])
    assert (unknown.status, unknown.message) == (400, "invalid filter")
    assert unknown.errors == [
        {"field": "amout:gte", "code": "invalid_filter", "message": "unknown filter amout:gte; did you mean amount?"}
    ]
    assert type(unknown.errors[0]["code"]) is str
    throttled = Throttled("slow down", retry_after=7)
    assert (throttled.status, throttled.code, throttled.headers) == (429, "throttled", {"Retry-After": "7"})


def test_codes_are_unique_lowercase_words():
    assert len(set(ErrorCode)) == len(ErrorCode.__members__)
    assert all(re.fullmatch(r"[a-z_]+", code) for code in ErrorCode)
