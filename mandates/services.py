"""Every write to a mandate: create, revoke (by the merchant, by support in the admin, by a return), and the use of
a single one by its debit. Each announces its event in the same database transaction (events.outbox)."""

from __future__ import annotations

import base64
import binascii
import hashlib
from dataclasses import dataclass
from datetime import datetime, timedelta

from dateutil.relativedelta import relativedelta
from django.db import transaction
from django.db.models import Sum
from django.utils import timezone

from accounts.models import Company
from customers.models import Customer
from events.outbox import event_record
from events.types import EventType
from mandates.errors import MandateNotActive
from mandates.models import Mandate
from mandates.records import mandate_record
from payments.models import PaymentMethod
from vault.error_codes import ErrorCode
from vault.errors import ApiError, Conflict

# Nacha: the originator keeps an authorization two years after it ends.
RETENTION = relativedelta(years=2)
EVIDENCE_MAX_BYTES = 5 * 1024 * 1024
# CONTRACT 14 (2026-12-07, security M4): a company's evidence files of any 24 hours together (kept for years, never
# deleted before their retention ends: a leaked key must not fill the disk).
EVIDENCE_QUOTA_BYTES = 20 * 1024 * 1024
EVIDENCE_QUOTA_WINDOW = timedelta(hours=24)


@dataclass(frozen=True)
class MandateTerms:
    """What the payer agreed to, as the create route takes it."""

    sec_code: str
    type: str
    channel: str
    accepted_at: datetime
    text: str
    max_amount: int | None = None
    frequency: str = ""
    ip_address: str | None = None
    user_agent: str = ""
    evidence: str | None = None  # base64


def _evidence_bytes(evidence: str) -> bytes:
    try:
        raw = base64.b64decode(evidence, validate=True)
    except (binascii.Error, ValueError):
        raise ApiError("evidence must be a base64 file", field="evidence") from None
    if not raw:
        raise ApiError("evidence is empty", field="evidence")
    if len(raw) > EVIDENCE_MAX_BYTES:
        raise ApiError(
            f"evidence is larger than {EVIDENCE_MAX_BYTES} bytes", field="evidence", code=ErrorCode.OUT_OF_RANGE
        )
    return raw


# CONTRACT 14 (2026-12-07, ACH review M3): how an authorization of each SEC code is given. WEB over the Internet, TEL
# orally over the telephone, PPD in writing (signed or similarly authenticated: an online one travels as WEB); CCD
# rests on the trading-partner agreement, any.
SEC_CHANNELS: dict[str, frozenset[str]] = {
    "WEB": frozenset({Mandate.Channel.ONLINE}),
    "TEL": frozenset({Mandate.Channel.PHONE}),
    "PPD": frozenset({Mandate.Channel.PAPER}),
    "CCD": frozenset(Mandate.Channel.values),
}


def _evidence_admit(*, company: Company, raw: bytes, sha256: str, now: datetime) -> None:
    """One copy of a file (409 `duplicate` naming the mandate that has it) and the company's quota (409
    `evidence_quota_exceeded`), counted under the company's row lock, so uploads at once cannot pass it together."""
    Company.objects.select_for_update().filter(pk=company.pk).values_list("pk", flat=True).first()
    copy = Mandate.objects.filter(company=company, evidence_sha256=sha256).values_list("uuid", flat=True).first()
    if copy is not None:
        raise Conflict(
            f"this evidence file is already the evidence of mandate {copy}",
            code=ErrorCode.DUPLICATE,
            field="evidence",
            data={"mandateUuid": str(copy)},
        )
    used = (
        Mandate.objects.filter(company=company, created_at__gt=now - EVIDENCE_QUOTA_WINDOW).aggregate(
            used=Sum("evidence_bytes")
        )["used"]
        or 0
    )
    if used + len(raw) > EVIDENCE_QUOTA_BYTES:
        raise Conflict(
            f"evidence files of the last 24 hours would pass the company's {EVIDENCE_QUOTA_BYTES} bytes ({used} used)",
            code=ErrorCode.EVIDENCE_QUOTA_EXCEEDED,
            field="evidence",
            data={"limitBytes": EVIDENCE_QUOTA_BYTES, "usedBytes": used},
        )


def mandate_terms_check(terms: MandateTerms, *, now: datetime) -> None:
    """The rules of CONTRACT 14 a body can break besides its shape: accepted in the past, the channel its SEC code is
    given by, online evidence."""
    if terms.accepted_at > now:
        raise ApiError("acceptedAt cannot be in the future", field="acceptedAt", code=ErrorCode.OUT_OF_RANGE)
    channels = SEC_CHANNELS[terms.sec_code]
    if terms.channel not in channels:
        raise ApiError(
            f"a {terms.sec_code} authorization is given {' or '.join(sorted(channels))}, not {terms.channel}",
            field="channel",
        )
    if terms.channel == Mandate.Channel.ONLINE:
        if not terms.ip_address:
            raise ApiError("ipAddress is required when channel is online", field="ipAddress", code=ErrorCode.REQUIRED)
        if not terms.user_agent:
            raise ApiError("userAgent is required when channel is online", field="userAgent", code=ErrorCode.REQUIRED)


def _announce(mandate: Mandate, type: str) -> None:
    event_record(company_id=mandate.company_id, type=type, object_uuid=mandate.uuid, data=mandate_record(mandate))


@transaction.atomic
def mandate_create(
    *, company: Company, customer: Customer, payment_method: PaymentMethod, terms: MandateTerms, now: datetime
) -> Mandate:
    mandate_terms_check(terms, now=now)
    evidence = _evidence_bytes(terms.evidence) if terms.evidence is not None else None
    evidence_sha256 = hashlib.sha256(evidence).hexdigest() if evidence is not None else ""
    if evidence is not None:
        _evidence_admit(company=company, raw=evidence, sha256=evidence_sha256, now=now)
    mandate = Mandate.objects.create(
        company=company,
        customer=customer,
        payment_method=payment_method,
        sec_code=terms.sec_code,
        type=terms.type,
        channel=terms.channel,
        accepted_at=terms.accepted_at,
        text=terms.text,
        text_sha256=hashlib.sha256(terms.text.encode()).hexdigest(),
        max_amount=terms.max_amount,
        frequency=terms.frequency,
        ip_address=terms.ip_address or None,
        user_agent=terms.user_agent,
        evidence=evidence,
        evidence_sha256=evidence_sha256,
        evidence_bytes=len(evidence) if evidence is not None else None,
        created_at=now,
    )
    _announce(mandate, EventType.MANDATE_CREATED)
    return mandate


def _revoked(mandate: Mandate, *, reason: str, by: str, now: datetime) -> Mandate:
    mandate.status = Mandate.Status.REVOKED
    mandate.revoked_at, mandate.revoked_reason, mandate.revoked_by = now, reason[:255], by
    mandate.retain_until = now + RETENTION
    mandate.save(update_fields=["status", "revoked_at", "revoked_reason", "revoked_by", "retain_until"])
    _announce(mandate, EventType.MANDATE_REVOKED)
    return mandate


@transaction.atomic
def mandate_revoke(*, mandate: Mandate, reason: str, by: str, now: datetime | None = None) -> Mandate:
    """active -> revoked, with the reason; retainUntil is two years later. A revoked mandate again is 409. Called by
    transactions.charges.revocation, which stops the mandate's debits in the same transaction."""
    if not reason.strip():
        raise ApiError("reason is required", field="reason", code=ErrorCode.REQUIRED)
    locked = (
        Mandate.objects.select_for_update()
        .select_related("customer", "payment_method")
        .defer("evidence")
        .get(pk=mandate.pk, company_id=mandate.company_id)
    )
    if locked.status != Mandate.Status.ACTIVE:
        raise MandateNotActive("mandate is already revoked", field=None)
    return _revoked(locked, reason=reason.strip(), by=by, now=now or timezone.now())


def mandates_revoke_for_methods(*, reasons: dict[tuple[int, int], str], by: str, now: datetime) -> list[Mandate]:
    """Every active mandate of the saved methods named by (company id, method id), each revoked with its reason (a
    return that says the payer withdrew or never gave it), in the caller's transaction: one query however many
    methods a return file names. Returns them (transactions.charges.revocation stops their debits)."""
    if not reasons:
        return []
    active = (
        Mandate.objects.select_for_update()
        .select_related("customer", "payment_method")
        .defer("evidence")
        .filter(
            company_id__in={company_id for company_id, _ in reasons},
            payment_method_id__in={method_id for _, method_id in reasons},
            status=Mandate.Status.ACTIVE,
        )
        .order_by("pk")
    )
    revoked = [
        _revoked(mandate, reason=reasons[(mandate.company_id, mandate.payment_method_id)], by=by, now=now)
        for mandate in active
        if (mandate.company_id, mandate.payment_method_id) in reasons
    ]
    return revoked


def mandate_use(*, mandate: Mandate, now: datetime) -> None:
    """A single mandate's one debit, in the debit's transaction: compare-and-set, so of two debits at once one
    wins and the other is 409 `mandate_not_active` (the row lock makes the second re-read it used)."""
    if mandate.type != Mandate.Type.SINGLE:
        return
    used = Mandate.objects.filter(
        pk=mandate.pk, company_id=mandate.company_id, status=Mandate.Status.ACTIVE, used_at__isnull=True
    ).update(used_at=now)
    if not used:
        raise MandateNotActive("the single mandate has already been used for a debit")
    mandate.used_at = now
