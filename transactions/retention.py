"""How long the service keeps the NACHA files under OUTBOUND_DIR, which carry full account numbers (the idempotency
records' 24 h purge is idempotency.services). The purge is meant for cron and safe to rerun."""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from transactions.models import OriginationFile

logger = logging.getLogger(__name__)

OUTBOUND_RETENTION_DAYS = 7


@dataclass
class OutboundPurgeResult:
    files: int = 0
    missing: int = 0

    def as_json(self) -> dict[str, int]:
        return {"purgedFiles": self.files, "alreadyGone": self.missing}


def outbound_files_purge(*, now: datetime, older_than_days: int = OUTBOUND_RETENTION_DAYS) -> OutboundPurgeResult:
    """Deletes NACHA files written more than `older_than_days` ago. The OriginationFile row stays (path, SHA-256,
    counts and totals), with `purged_at` set, so what was sent remains on record without the account numbers."""
    result = OutboundPurgeResult()
    due = OriginationFile.objects.filter(
        created_at__lt=now - timedelta(days=older_than_days), purged_at__isnull=True
    ).exclude(path="")
    for origination_file in due.order_by("id").iterator():
        path = Path(origination_file.path)
        sha256 = origination_file.sha256
        if not sha256 and path.exists():  # written before the digest was recorded
            sha256 = hashlib.sha256(path.read_bytes()).hexdigest()
        try:
            path.unlink()
            result.files += 1
        except FileNotFoundError:
            result.missing += 1
        OriginationFile.objects.filter(pk=origination_file.pk, purged_at__isnull=True).update(
            purged_at=now, sha256=sha256
        )
        logger.info("origination file %s purged", origination_file.uuid)
    return result
