"""A mandate as its GET route, its events and its proof show it (account masked, evidence by its hash only)."""

from __future__ import annotations

from typing import Any

from mandates.models import Mandate
from vault.records import iso_utc, mask, text_or_none


def mandate_record(mandate: Mandate) -> dict[str, Any]:
    method = mandate.payment_method
    return {
        "mandateUuid": str(mandate.uuid),
        "customerUuid": str(mandate.customer.uuid),
        "paymentMethodUuid": str(method.uuid),
        "accountNumber": mask(method.last_four),
        "status": mandate.status,
        "standardEntryClassCode": mandate.sec_code,
        "type": mandate.type,
        "channel": mandate.channel,
        "acceptedAt": iso_utc(mandate.accepted_at),
        "text": mandate.text,
        "textSha256": mandate.text_sha256,
        "terms": {"maxAmount": mandate.max_amount, "frequency": text_or_none(mandate.frequency)},
        "ipAddress": mandate.ip_address,
        "userAgent": text_or_none(mandate.user_agent),
        "evidenceSha256": text_or_none(mandate.evidence_sha256),
        "evidenceBytes": mandate.evidence_bytes,
        "usedAt": iso_utc(mandate.used_at),
        "revokedAt": iso_utc(mandate.revoked_at),
        "revokedReason": text_or_none(mandate.revoked_reason),
        "retainUntil": iso_utc(mandate.retain_until),
        "createdAt": iso_utc(mandate.created_at),
    }
