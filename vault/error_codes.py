"""The machine error codes of the API: one closed vocabulary (vault.errors re-exports it)."""

from __future__ import annotations

from enum import StrEnum


class ErrorCode(StrEnum):
    """Every machine code this API puts in `errors[].code` (CONTRACT 4), in the shape of zulip's ErrorCode and
    saleor's PaymentErrorCode. Field validators of DRF add their own (max_length, min_value, ...), passed on as
    DRF names them."""

    # The request's shape
    INVALID = "invalid"
    REQUIRED = "required"
    UNKNOWN_FIELD = "unknown_field"
    INVALID_CHOICE = "invalid_choice"
    TYPE = "type"
    OUT_OF_RANGE = "out_of_range"
    PAST_DATE = "past_date"
    INVALID_CHECKSUM = "invalid_checksum"
    INVALID_FILTER = "invalid_filter"
    INVALID_COLUMNS = "invalid_columns"
    UNSAFE_URL = "unsafe_url"
    PARSE_ERROR = "parse_error"
    BAD_REQUEST = "bad_request"
    HOST_NOT_ALLOWED = "host_not_allowed"
    REQUEST_TOO_LARGE = "request_too_large"
    URI_TOO_LONG = "uri_too_long"
    HEADER_TOO_LARGE = "header_too_large"
    # Who calls
    NOT_AUTHENTICATED = "not_authenticated"
    AUTHENTICATION_FAILED = "authentication_failed"
    FORBIDDEN = "forbidden"
    API_KEYS_DISABLED = "api_keys_disabled"
    COMPANY_SUSPENDED = "company_suspended"
    THROTTLED = "throttled"
    # The route
    NOT_FOUND = "not_found"
    METHOD_NOT_ALLOWED = "method_not_allowed"
    NOT_ACCEPTABLE = "not_acceptable"
    UNSUPPORTED_MEDIA_TYPE = "unsupported_media_type"
    # Domain rules
    CONFLICT = "conflict"
    DUPLICATE = "duplicate"
    UNIQUE = "unique"
    CUSTOMER_INACTIVE = "customer_inactive"
    INCOMPATIBLE_METHOD = "incompatible_method"
    PAYMENT_METHOD_BLOCKED = "payment_method_blocked"
    IDEMPOTENCY_KEY_REUSED = "idempotency_key_reused"
    NOT_VOIDABLE = "not_voidable"
    NOT_REVERSIBLE = "not_reversible"
    INVALID_STATUS = "invalid_status"
    ENDPOINT_DISABLED = "endpoint_disabled"
    ENDPOINT_LIMIT_REACHED = "endpoint_limit_reached"
    ENDPOINT_URL_EXISTS = "endpoint_url_exists"
    REPLAY_IN_FLIGHT = "replay_in_flight"
    REPLAY_BUDGET_EXHAUSTED = "replay_budget_exhausted"
    EXPORT_TOO_LARGE = "export_too_large"
    EXPORT_NOT_READY = "export_not_ready"
    EXPORT_EXPIRED = "export_expired"
    # Account validation and entry descriptions (CONTRACT 11)
    ENTRY_DESCRIPTION_MISMATCH = "entry_description_mismatch"
    ENTRY_DESCRIPTION_RESERVED = "entry_description_reserved"
    VALIDATION_PENDING = "validation_pending"
    NO_VALIDATION_PENDING = "no_validation_pending"
    VALIDATION_EXPIRED = "validation_expired"
    AMOUNTS_MISMATCH = "amounts_mismatch"
    VALIDATION_ATTEMPTS_EXHAUSTED = "validation_attempts_exhausted"  # CONTRACT 12: micro-deposits twice per 30 days
    # ACH rules (CONTRACT 12)
    SEC_CODE_NOT_ALLOWED = "sec_code_not_allowed"
    SAME_DAY_NOT_ALLOWED = "same_day_not_allowed"
    # Re-presenting a returned debit (Nacha 2.12.4)
    NOT_RETRYABLE = "not_retryable"
    NOT_RETURNED = "not_returned"
    RETURN_CODE_NOT_RETRYABLE = "return_code_not_retryable"
    ALREADY_RETRIED = "already_retried"
    RETRY_LIMIT_REACHED = "retry_limit_reached"
    RETRY_WINDOW_PASSED = "retry_window_passed"
    # The sandbox's simulations (CONTRACT 13)
    NOT_SIMULATABLE = "not_simulatable"
    SANDBOX_CLOCK_MOVED = "sandbox_clock_moved"
    # Re-initiation and blocked accounts, reversal and refund (CONTRACT 12)
    REINITIATION_REQUIRES_RETRY = "reinitiation_requires_retry"
    ACCOUNT_BLOCKED = "account_blocked"
    REVERSAL_WINDOW_CLOSED = "reversal_window_closed"
    REFUND_EXCEEDS_ORIGINAL = "refund_exceeds_original"
    REFUND_EXISTS = "refund_exists"
    NOT_REFUNDABLE = "not_refundable"
    # Authorizations and schedules (CONTRACT 14)
    MANDATE_REQUIRED = "mandate_required"
    OUTSIDE_MANDATE_TERMS = "outside_mandate_terms"
    MANDATE_NOT_ACTIVE = "mandate_not_active"
    SCHEDULE_NOT_ACTIVE = "schedule_not_active"
    EVIDENCE_QUOTA_EXCEEDED = "evidence_quota_exceeded"
    # The server
    ERROR = "error"
    SERVICE_UNAVAILABLE = "service_unavailable"
    SERVER_ERROR = "server_error"
