"""The one table of reporting fields (SPEC 4.9, CONTRACT 7): column key, filter name, type, width, ORM path,
nested group and companions. The filters, the sort and the projection all read it; adding a field is a line
(and a field type is a class of reporting.kinds).

Filter semantics on a null value follow SQL and PostgREST: every comparing condition (eq, neq, gt, gte, lt, lte,
like, in, between, empty) is false on a null, so `neq` never returns rows whose value is null; only `null` matches
them and `nn` excludes them. A value is null when its column is null or its joined row (batch, settlement, return,
notice, hold, exception) does not exist; non-null text columns hold "" rather than null and so match `empty`."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.core.exceptions import ImproperlyConfigured

from reporting.kinds import ALL, KINDS, ORDERED, FieldKind, FieldType  # noqa: F401 (ALL, ORDERED: for readers)

# Which conditions fit which type (CONTRACT 7: no `like` on integers, no `gt` on booleans): each kind's own.
CONDITIONS: dict[str, tuple[str, ...]] = {field_type: kind.conditions for field_type, kind in KINDS.items()}

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
    type: str  # its kind's name (reporting.kinds: KINDS, FieldType)
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
    def kind(self) -> FieldKind:
        """What the report knows of this field's type (reporting.kinds)."""
        return KINDS[self.type]

    @property
    def inner_key(self) -> str | None:
        return self.inner or self.key

    @property
    def query_path(self) -> str:
        return self.local_copy or self.path


# The table's column of types, by name.
STRING, UUID, ID, INTEGER, TIMESTAMP, DATE, JSON, BOOLEAN, ACCOUNT = (
    FieldType.STRING,
    FieldType.UUID,
    FieldType.ID,
    FieldType.INTEGER,
    FieldType.TIMESTAMP,
    FieldType.DATE,
    FieldType.JSON,
    FieldType.BOOLEAN,
    FieldType.ACCOUNT,
)

FIELDS: tuple[ReportField, ...] = (
    # flat
    ReportField("uuid", "uuid", UUID, "uuid", width=255),
    ReportField("numericId", "numericid", INTEGER, "id"),
    ReportField("companyUuid", "companyuuid", UUID, "company__uuid", width=255, company_attr="uuid"),
    ReportField("companyName", "companyname", STRING, "company__name", width=255, company_attr="name"),
    ReportField("amount", "amount", INTEGER, "amount"),
    ReportField("type", "type", STRING, "type", width=255),
    ReportField("method", "method", STRING, "method", width=255),
    ReportField("status", "status", STRING, "status", width=255),
    ReportField("createdAt", "createdat", TIMESTAMP, "created_at"),
    ReportField("isSameDay", "issameday", BOOLEAN, "is_same_day"),
    ReportField("sequenceUuid", "sequenceuuid", UUID, "sequence_uuid", width=255),
    ReportField("historicalId", "historicalid", STRING, "historical_id", width=255),
    ReportField("reversedAt", None, TIMESTAMP, "reversed_at"),
    ReportField("reversalUuid", None, UUID, "reversal_uuid"),
    ReportField("lateReturnedAt", "latereturnedat", TIMESTAMP, "late_returned_at"),
    ReportField("saleAt", None, TIMESTAMP, "sale_at"),
    ReportField("effectiveDate", "effectivedate", DATE, "effective_date"),
    ReportField("standardEntryClassCode", "standardentryclasscode", STRING, "standard_entry_class_code", width=4),
    ReportField("externalUniqueId", "externaluniqueid", STRING, "external_unique_id", width=255),
    ReportField("isDuplicate", "isduplicate", BOOLEAN, "is_duplicate"),
    ReportField("rtpTransactionId", None, STRING, "rtp_transaction_id"),
    # CONTRACT 11: the batch's Company Entry Description, the charge's purpose, and its saved method's validation.
    ReportField("entryDescription", "entrydescription", STRING, "entry_description", width=10),
    ReportField("purpose", "purpose", STRING, "purpose", width=10),
    ReportField("validationStatus", "validationstatus", STRING, "payment_method__validation_status", width=12),
    # CONTRACT 15: when a debit's money is safe (transactions.ach.finality); null for what has no finality.
    ReportField("finality", "finality", STRING, "finality", width=9),
    ReportField("fundsAvailableAt", "fundsavailableat", TIMESTAMP, "funds_available_at"),
    ReportField("finalAt", "finalat", TIMESTAMP, "final_at"),
    # CONTRACT 14: the mandate a debit went under, and the schedule that made it.
    ReportField("mandateUuid", "mandateuuid", UUID, "mandate__uuid", width=255),
    ReportField("scheduleUuid", "scheduleuuid", UUID, "scheduled_debit__schedule__uuid", width=255),
    # CONTRACT 15: a re-presentment's first presentment.
    ReportField("retryOf", "retryof", UUID, "retry_of__uuid", width=255),
    # paymentDetails
    ReportField(
        "name", "name", STRING, "name", group="paymentDetails", width=255, distinct_values="reporting.PayerName"
    ),
    ReportField(
        "paymentAccountType",
        "accounttype",
        STRING,
        "account_type",
        group="paymentDetails",
        inner="accountType",
        width=255,
    ),
    ReportField(
        "accountNumber",
        "accountnumber",
        ACCOUNT,
        "account_last_four",
        group="paymentDetails",
        width=255,
        companions=("panFirstSix",),
        render="masked",
    ),
    ReportField(
        "paymentRoutingNumber",
        "routingnumber",
        STRING,
        "routing_number",
        group="paymentDetails",
        inner="routingNumber",
        width=255,
    ),
    # batchDetails
    ReportField("batchUuid", "batchuuid", UUID, "batch__uuid", group="batchDetails", width=255),
    ReportField(
        "batchNumericId", "batchnumericid", INTEGER, "batch_id", group="batchDetails", companions=("batchUuid",)
    ),
    ReportField("batchedAt", "batchedat", TIMESTAMP, "batch__batched_at", group="batchDetails"),
    ReportField("traceNumber", None, STRING, "trace_number", group="batchDetails"),
    # settlementDetails
    ReportField("settlementUuid", "settlementuuid", UUID, "settlement__uuid", group="settlementDetails", width=255),
    ReportField("settlementNumericId", "settlementnumericid", INTEGER, "settlement_id", group="settlementDetails"),
    ReportField(
        "settlementProcessedAt",
        "settlementprocessedat",
        TIMESTAMP,
        "settlement__processed_at",
        group="settlementDetails",
    ),
    ReportField(
        "expectedToSettleAt", "expectedtosettleat", TIMESTAMP, "expected_to_settle_at", group="settlementDetails"
    ),
    # returnDetails
    ReportField(
        "returnCode",
        "returncode",
        STRING,
        "return_entry__return_code",
        group="returnDetails",
        width=4,
        local_copy="return_code",
    ),
    ReportField(
        "returnReason", "returnreason", STRING, "return_entry__return_reason", group="returnDetails", width=255
    ),
    ReportField("returnedAt", "returnedat", TIMESTAMP, "return_entry__returned_at", group="returnDetails"),
    ReportField(None, "returnnumericid", ID, "return_entry__id", width=255),
    ReportField(None, "returnuuid", UUID, "return_entry__uuid", width=255),
    # lateReturnSettlementDetails
    ReportField(
        "lateReturnSettlementNumericId",
        "latereturnsettlementnumericid",
        ID,
        "late_return_settlement_id",
        group="lateReturnSettlementDetails",
        width=255,
    ),
    ReportField(
        "lateReturnSettlementUuid",
        "latereturnsettlementuuid",
        UUID,
        "late_return_settlement__uuid",
        group="lateReturnSettlementDetails",
        width=255,
        aliases=("latereturnsettmentuuid",),  # SPEC's spelling
    ),
    ReportField(
        "lateReturnSettlementProcessedAt",
        "latereturnsettlementprocessedat",
        TIMESTAMP,
        "late_return_settlement__processed_at",
        group="lateReturnSettlementDetails",
    ),
    # changeDetails
    ReportField("changeCode", "changecode", STRING, "change_notice__change_code", group="changeDetails", width=255),
    ReportField(
        "changeReason", "changereason", STRING, "change_notice__change_reason", group="changeDetails", width=255
    ),
    ReportField("changedAt", "changedat", TIMESTAMP, "change_notice__changed_at", group="changeDetails"),
    ReportField("nocReceivedAt", "nocreceivedat", TIMESTAMP, "change_notice__noc_received_at", group="changeDetails"),
    ReportField(None, "changenewvalue", JSON, "change_notice__new_value"),
    ReportField(None, "changeoldvalue", JSON, "change_notice__old_value"),
    # holdDetails
    ReportField("holdCode", None, STRING, "hold__hold_code", group="holdDetails"),
    ReportField("holdReason", "holdreason", STRING, "hold__hold_reason", group="holdDetails", width=255),
    ReportField("releasedAt", "releasedat", TIMESTAMP, "hold__released_at", group="holdDetails"),
    # exceptionDetails
    ReportField("rejectReason", None, STRING, "exception__reject_reason", group="exceptionDetails"),
    ReportField("rejectedAt", None, TIMESTAMP, "exception__rejected_at", group="exceptionDetails"),
    ReportField("restoredAt", None, TIMESTAMP, "exception__restored_at", group="exceptionDetails"),
    ReportField("voidedAt", "voidedat", TIMESTAMP, "voided_at", group="exceptionDetails"),
    ReportField("acknowledgedAt", None, TIMESTAMP, "exception__acknowledged_at", group="exceptionDetails"),
    # cardDetails
    ReportField("cardNumber", None, STRING, "card_masked", group="cardDetails"),
    ReportField("panFirstSix", "panfirstsix", STRING, "card_first_six", group="cardDetails", width=6),
    ReportField("panLastFour", "panlastfour", STRING, "card_last_four", group="cardDetails", width=4),
    ReportField("authorizedAt", None, TIMESTAMP, "authorized_at", group="cardDetails"),
    ReportField("authResponseCode", None, STRING, "auth_response_code", group="cardDetails"),
    ReportField("capturedAt", None, TIMESTAMP, "captured_at", group="cardDetails"),
    # metadata
    ReportField("description", None, STRING, "description", group="metadata"),
    ReportField("failureReason", None, STRING, "failure_reason", group="metadata"),
    ReportField("ingestionFileUuid", None, UUID, "ingestion_file__uuid", group="metadata"),
    ReportField("idempotencyKey", None, STRING, "idempotency_key", group="metadata"),
    # filter-only scalars
    ReportField(None, "categoryuuid", UUID, "category_uuid", width=255),
    ReportField(None, "category", STRING, "category", width=255),
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
    bad += [f"{f.key or f.filter}: {f.type}" for f in FIELDS if f.type not in KINDS]
    if bad:
        raise ImproperlyConfigured(f"reporting registry names unknown keys, groups or types: {bad}")


_check_registry()
