"""The errors of saved payment methods, in the one error contract of vault.errors."""

from __future__ import annotations

from vault.error_codes import ErrorCode
from vault.errors import ApiError


class PaymentMethodBlocked(ApiError):
    """A saved method blocked by a return (R02-R04): 400 on a charge, 409 on a reversal."""

    code = ErrorCode.PAYMENT_METHOD_BLOCKED

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message, status=status, field="paymentMethodUuid")
