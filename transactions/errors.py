"""The errors of charges, in the one error contract of vault.errors."""

from __future__ import annotations

from vault.error_codes import ErrorCode
from vault.errors import ApiError, Conflict


class IncompatibleMethod(ApiError):
    code = ErrorCode.INCOMPATIBLE_METHOD

    def __init__(self, message: str) -> None:
        super().__init__(message, field="method")


class NotRetryable(Conflict):
    """A returned debit that may not be re-presented (POST /transactions/{uuid}/retry): 409 with the reason."""

    code = ErrorCode.NOT_RETRYABLE

    def __init__(self, message: str, *, code: ErrorCode) -> None:
        super().__init__(message, code=code, field="transactionUuid")
