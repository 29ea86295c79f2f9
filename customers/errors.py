"""The errors of customers, in the one error contract of vault.errors."""

from __future__ import annotations

from vault.error_codes import ErrorCode
from vault.errors import ApiError


class CustomerInactive(ApiError):
    code = ErrorCode.CUSTOMER_INACTIVE

    def __init__(self, message: str) -> None:
        super().__init__(message, field="customerUuid")
