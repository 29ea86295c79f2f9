"""The errors of authorizations (CONTRACT 14), in the one error contract of vault.errors."""

from __future__ import annotations

from vault.error_codes import ErrorCode
from vault.errors import Conflict, NotFound

MANDATE_FIELD = "mandateUuid"


class MandateNotFound(NotFound):
    def __init__(self, message: str = "Mandate not found", *, field: str | None = None) -> None:
        super().__init__(message, field=field)


class MandateRequired(Conflict):
    code = ErrorCode.MANDATE_REQUIRED

    def __init__(self, message: str) -> None:
        super().__init__(message, field=MANDATE_FIELD)


class OutsideMandateTerms(Conflict):
    code = ErrorCode.OUTSIDE_MANDATE_TERMS

    def __init__(self, message: str, *, field: str = MANDATE_FIELD) -> None:
        super().__init__(message, field=field)


class MandateNotActive(Conflict):
    code = ErrorCode.MANDATE_NOT_ACTIVE

    def __init__(self, message: str, *, field: str = MANDATE_FIELD) -> None:
        super().__init__(message, field=field)
