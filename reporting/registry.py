"""The one table of reporting fields (SPEC 4.9, CONTRACT 7): column key, filter name, type, width, ORM path,
nested group and companions. The filter backend, the sort and the projection all read it; adding a field is a line.

Filter semantics on a null value follow SQL and PostgREST: every comparing condition (eq, neq, gt, gte, lt, lte,
like, in, between, empty) is false on a null, so `neq` never returns rows whose value is null; only `null` matches
them and `nn` excludes them. A value is null when its column is null or its joined row (batch, settlement, return,
notice, hold, exception) does not exist; non-null text columns hold "" rather than null and so match `empty`."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from django.core.exceptions import ImproperlyConfigured


class FieldType(StrEnum):
    STRING = "string"
    UUID = "uuid"  # a string field of SPEC stored as a UUID column: the value must be a UUID (or a `like` fragment)
    ID = "id"  # a numeric id that SPEC lists among the strings (returnnumericid, latereturnsettlementnumericid)
    INTEGER = "integer"
    TIMESTAMP = "timestamp"
    DATE = "date"  # effectivedate: a timestamp filter on a date column
    JSON = "json"
    BOOLEAN = "boolean"
    ACCOUNT = "account"  # accountnumber: encrypted; equality through the keyed hash, like on the masked form


ALL = ("eq", "neq", "gt", "gte", "lt", "lte", "nn", "null", "empty", "like", "in", "between")
ORDERED = ("eq", "neq", "gt", "gte", "lt", "lte", "nn", "null", "in", "between")

# Which conditions fit which type (CONTRACT 7: no `like` on integers, no `gt` on booleans).
CONDITIONS: dict[FieldType, tuple[str, ...]] = {
    FieldType.STRING: ALL,
    FieldType.UUID: ("eq", "neq", "nn", "null", "empty", "like", "in"),
    FieldType.ID: ORDERED,
    FieldType.INTEGER: ORDERED,
    FieldType.TIMESTAMP: ORDERED,
    FieldType.DATE: ORDERED,
    FieldType.JSON: ("eq", "neq", "nn", "null", "empty", "like"),
    FieldType.BOOLEAN: ("eq", "neq", "nn", "null"),
    FieldType.ACCOUNT: ("eq", "neq", "nn", "null", "empty", "like", "in"),
}

# Nested objects of a row, in output order (CONTRACT 7); None is the flat part of the row.
GROUPS = (
    None,
    "paymentDetails",
    "batchDetails",
    "settlementDetails",
    "returnDetails",
    "lateReturnSettlementDetails",
    "changeDetails",
    "holdDetails",
    "exceptionDetails",
    "cardDetails",
    "metadata",
)


@dataclass(frozen=True)
class ReportField:
    key: str | None  # camelCase column key; None for filter-only fields
    filter: str | None  # lowercase filter name; None for columns that cannot be filtered
    type: FieldType
    path: str  # ORM path from Transaction
    group: str | None = None
    inner: str | None = None  # key inside the nested object when it differs from `key`
    width: int | None = None  # string width bound of SPEC 4.9
    companions: tuple[str, ...] = ()
    render: str | None = None  # name of a converter in reporting.projection.RENDERERS
    company_attr: str | None = None  # value comes from request.company (no join for the projection)
    aliases: tuple[str, ...] = field(default_factory=tuple)
    # A copy of the joined value on the transaction row, kept by a database trigger: filters, sort and projection
    # read it (one index, no join); `path` stays the record it is copied from.
    local_copy: str | None = None
    # A model (`company` and a field named as `path`) of each company's distinct values of this field, kept by
    # database triggers: `like` finds the matching values there, then the transactions by equality on the
    # (company, field) index.
    distinct_values: str | None = None

    @property
    def inner_key(self) -> str | None:
        return self.inner or self.key

    @property
    def query_path(self) -> str:
        return self.local_copy or self.path


S, U, ID, INT, T, D, J, B = (
    FieldType.STRING,
    FieldType.UUID,
    FieldType.ID,
    FieldType.INTEGER,
    FieldType.TIMESTAMP,
    FieldType.DATE,
    FieldType.JSON,
    FieldType.BOOLEAN,
)
F = ReportField

FIELDS: tuple[ReportField, ...] = (
    # flat
    F("uuid", "uuid", U, "uuid", width=255),
    F("numericId", "numericid", INT, "id"),
    F("companyUuid", "companyuuid", U, "company__uuid", width=255, company_attr="uuid"),
    F("companyName", "companyname", S, "company__name", width=255, company_attr="name"),
    F("amount", "amount", INT, "amount"),
    F("type", "type", S, "type", width=255),
    F("method", "method", S, "method", width=255),
    F("status", "status", S, "status", width=255),
    F("createdAt", "createdat", T, "created_at"),
    F("isSameDay", "issameday", B, "is_same_day"),
    F("sequenceUuid", "sequenceuuid", U, "sequence_uuid", width=255),
    F("historicalId", "historicalid", S, "historical_id", width=255),
    F("reversedAt", None, T, "reversed_at"),
    F("reversalUuid", None, U, "reversal_uuid"),
    F("lateReturnedAt", "latereturnedat", T, "late_returned_at"),
    F("saleAt", None, T, "sale_at"),
    F("effectiveDate", "effectivedate", D, "effective_date"),
    F("standardEntryClassCode", "standardentryclasscode", S, "standard_entry_class_code", width=4),
    F("externalUniqueId", "externaluniqueid", S, "external_unique_id", width=255),
    F("isDuplicate", "isduplicate", B, "is_duplicate"),
    F("rtpTransactionId", None, S, "rtp_transaction_id"),
    # CONTRACT 11: the batch's Company Entry Description, the charge's purpose, and its saved method's validation.
    F("entryDescription", "entrydescription", S, "entry_description", width=10),
    F("purpose", "purpose", S, "purpose", width=10),
    F("validationStatus", "validationstatus", S, "payment_method__validation_status", width=12),
    # paymentDetails
    F("name", "name", S, "name", group="paymentDetails", width=255, distinct_values="reporting.PayerName"),
    F("paymentAccountType", "accounttype", S, "account_type", group="paymentDetails", inner="accountType", width=255),
    F(
        "accountNumber",
        "accountnumber",
        FieldType.ACCOUNT,
        "account_last_four",
        group="paymentDetails",
        width=255,
        companions=("panFirstSix",),
        render="masked",
    ),
    F(
        "paymentRoutingNumber",
        "routingnumber",
        S,
        "routing_number",
        group="paymentDetails",
        inner="routingNumber",
        width=255,
    ),
    # batchDetails
    F("batchUuid", "batchuuid", U, "batch__uuid", group="batchDetails", width=255),
    F("batchNumericId", "batchnumericid", INT, "batch_id", group="batchDetails", companions=("batchUuid",)),
    F("batchedAt", "batchedat", T, "batch__batched_at", group="batchDetails"),
    F("traceNumber", None, S, "trace_number", group="batchDetails"),
    # settlementDetails
    F("settlementUuid", "settlementuuid", U, "settlement__uuid", group="settlementDetails", width=255),
    F("settlementNumericId", "settlementnumericid", INT, "settlement_id", group="settlementDetails"),
    F("settlementProcessedAt", "settlementprocessedat", T, "settlement__processed_at", group="settlementDetails"),
    F("expectedToSettleAt", "expectedtosettleat", T, "expected_to_settle_at", group="settlementDetails"),
    # returnDetails
    F(
        "returnCode",
        "returncode",
        S,
        "return_entry__return_code",
        group="returnDetails",
        width=4,
        local_copy="return_code",
    ),
    F("returnReason", "returnreason", S, "return_entry__return_reason", group="returnDetails", width=255),
    F("returnedAt", "returnedat", T, "return_entry__returned_at", group="returnDetails"),
    F(None, "returnnumericid", ID, "return_entry__id", width=255),
    F(None, "returnuuid", U, "return_entry__uuid", width=255),
    # lateReturnSettlementDetails
    F(
        "lateReturnSettlementNumericId",
        "latereturnsettlementnumericid",
        ID,
        "late_return_settlement_id",
        group="lateReturnSettlementDetails",
        width=255,
    ),
    F(
        "lateReturnSettlementUuid",
        "latereturnsettlementuuid",
        U,
        "late_return_settlement__uuid",
        group="lateReturnSettlementDetails",
        width=255,
        aliases=("latereturnsettmentuuid",),  # SPEC's spelling
    ),
    F(
        "lateReturnSettlementProcessedAt",
        "latereturnsettlementprocessedat",
        T,
        "late_return_settlement__processed_at",
        group="lateReturnSettlementDetails",
    ),
    # changeDetails
    F("changeCode", "changecode", S, "change_notice__change_code", group="changeDetails", width=255),
    F("changeReason", "changereason", S, "change_notice__change_reason", group="changeDetails", width=255),
    F("changedAt", "changedat", T, "change_notice__changed_at", group="changeDetails"),
    F("nocReceivedAt", "nocreceivedat", T, "change_notice__noc_received_at", group="changeDetails"),
    F(None, "changenewvalue", J, "change_notice__new_value"),
    F(None, "changeoldvalue", J, "change_notice__old_value"),
    # holdDetails
    F("holdCode", None, S, "hold__hold_code", group="holdDetails"),
    F("holdReason", "holdreason", S, "hold__hold_reason", group="holdDetails", width=255),
    F("releasedAt", "releasedat", T, "hold__released_at", group="holdDetails"),
    # exceptionDetails
    F("rejectReason", None, S, "exception__reject_reason", group="exceptionDetails"),
    F("rejectedAt", None, T, "exception__rejected_at", group="exceptionDetails"),
    F("restoredAt", None, T, "exception__restored_at", group="exceptionDetails"),
    F("voidedAt", "voidedat", T, "voided_at", group="exceptionDetails"),
    F("acknowledgedAt", None, T, "exception__acknowledged_at", group="exceptionDetails"),
    # cardDetails
    F("cardNumber", None, S, "card_masked", group="cardDetails"),
    F("panFirstSix", "panfirstsix", S, "card_first_six", group="cardDetails", width=6),
    F("panLastFour", "panlastfour", S, "card_last_four", group="cardDetails", width=4),
    F("authorizedAt", None, T, "authorized_at", group="cardDetails"),
    F("authResponseCode", None, S, "auth_response_code", group="cardDetails"),
    F("capturedAt", None, T, "captured_at", group="cardDetails"),
    # metadata
    F("description", None, S, "description", group="metadata"),
    F("failureReason", None, S, "failure_reason", group="metadata"),
    F("ingestionFileUuid", None, U, "ingestion_file__uuid", group="metadata"),
    F("idempotencyKey", None, S, "idempotency_key", group="metadata"),
    # filter-only scalars
    F(None, "categoryuuid", U, "category_uuid", width=255),
    F(None, "category", S, "category", width=255),
)

ALWAYS_ON = (
    "uuid",
    "numericId",
    "companyUuid",
    "companyName",
    "amount",
    "type",
    "method",
    "status",
    "createdAt",
    "isSameDay",
    "sequenceUuid",
    "historicalId",
    "reversedAt",
    "reversalUuid",
    "settlementProcessedAt",
    "lateReturnedAt",
    "saleAt",
)
DEFAULT_COLUMNS = (
    "numericId",
    "companyName",
    "uuid",
    "amount",
    "type",
    "method",
    "status",
    "name",
    "accountNumber",
    "effectiveDate",
    "createdAt",
    "batchNumericId",
    "settlementNumericId",
)

BY_KEY: dict[str, ReportField] = {f.key: f for f in FIELDS if f.key}
# Names other APIs (and other routes of this one) use for a report key; an unknown column suggests ours.
MEANT_KEYS = {"transactionuuid": "uuid", "id": "numericId", "transactionid": "numericId"}
BY_FILTER: dict[str, ReportField] = {name: f for f in FIELDS if f.filter for name in (f.filter, *f.aliases)}


@dataclass(frozen=True)
class QueryParameter:
    """A query parameter of the listing that is not a filter; the OpenAPI document is generated from these."""

    name: str
    type: str  # JSON Schema type of the value
    description: str
    required: bool = False
    enum: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    items: tuple[str, ...] = ()  # an array of these values, comma-separated (`type` is "array")

    @property
    def bounds(self) -> dict[str, int]:
        return {k: v for k, v in (("minimum", self.minimum), ("maximum", self.maximum)) if v is not None}


QUERY_PARAMETERS: tuple[QueryParameter, ...] = (
    QueryParameter(
        "page", "integer", "Zero-based page; required unless `cursor` is sent (not used with format=csv).", minimum=0
    ),
    QueryParameter("pageSize", "integer", "Rows per page (not used with format=csv).", True, minimum=1, maximum=1000),
    QueryParameter("cursor", "string", "A page's `meta.pagination.nextCursor`: the next page, in place of `page`."),
    QueryParameter("count", "string", "`exact` counts every match past 10,000 (may be slow).", enum=("exact",)),
    QueryParameter(
        "columns",
        "array",
        "Column keys, comma-separated (`columns=amount,name`; the parameter repeated works too). A row always has "
        f"the always-on keys, whatever you select: {', '.join(ALWAYS_ON)}. Without `columns` it also has the "
        f"default set: {', '.join(key for key in DEFAULT_COLUMNS if key not in ALWAYS_ON)}. With `columns` it has "
        "the always-on keys, the selected ones and their companions (`batchNumericId` brings `batchUuid`). An "
        "unknown key is 400 `invalid columns`, naming the valid keys.",
        items=tuple(BY_KEY),
    ),
    QueryParameter("sort", "string", "`id` (numericId, the default) or any filterable field.", enum=("id", *BY_FILTER)),
    QueryParameter("sortDir", "string", "Sort direction (default DESC).", enum=("ASC", "DESC")),
    QueryParameter("format", "string", "`csv` streams every matching row (no paging).", enum=("json", "csv")),
)
# Reserved query parameters that are not filters (CONTRACT 7); entityUuid is every route's (CONTRACT 3).
RESERVED_PARAMS = frozenset({p.name for p in QUERY_PARAMETERS} | {"entityUuid"})


def _check_registry() -> None:
    """A typo in the table fails at import, not on a request."""
    bad = [f.key or f.filter for f in FIELDS if f.group not in GROUPS]
    bad += [c for f in FIELDS for c in f.companions if c not in BY_KEY]
    bad += [key for key in (*ALWAYS_ON, *DEFAULT_COLUMNS) if key not in BY_KEY]
    if bad:
        raise ImproperlyConfigured(f"reporting registry names unknown keys or groups: {bad}")


_check_registry()
