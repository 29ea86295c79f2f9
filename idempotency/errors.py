"""The one error of Idempotency-Key, in the error contract of vault.errors."""

from __future__ import annotations

from vault.error_codes import ErrorCode
from vault.errors import Conflict


class IdempotencyKeyReused(Conflict):
    code = ErrorCode.IDEMPOTENCY_KEY_REUSED

    def __init__(self, message: str) -> None:
        super().__init__(message, field="Idempotency-Key")
