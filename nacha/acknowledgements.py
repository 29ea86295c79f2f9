"""The bank's acknowledgement of a file we sent (docs/bank-files.md): one JSON object, `acknowledgement` 1.
Nacha defines none, so each bank has its own; this is the reference format: its writer (the test bank's) and its
reader (`fetch_bank_files`'s). A bank with another one gets a reader here that answers the same `Acknowledgement`."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime

FORMAT_VERSION = 1
STATUSES = ("accepted", "rejected")


class AcknowledgementError(ValueError):
    """Not an acknowledgement this service reads; the message quotes none of the file."""


@dataclass(frozen=True)
class Acknowledgement:
    file: str  # the name we gave the file on the bank's server
    accepted: bool
    reason: str
    sha256: str | None
    entries: int | None
    debit_total: int | None
    credit_total: int | None


def looks_like_acknowledgement(head: bytes) -> bool:
    return head.lstrip()[:1] == b"{"


def _count(document: dict, key: str) -> int | None:
    value = document.get(key)
    if value is None:
        return None
    if type(value) is not int or value < 0:
        raise AcknowledgementError(f"{key} must be a whole number of 0 or more")
    return value


def acknowledgement_read(data: bytes) -> Acknowledgement:
    try:
        document = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise AcknowledgementError("not a JSON document") from None
    if not isinstance(document, dict) or document.get("acknowledgement") != FORMAT_VERSION:
        raise AcknowledgementError(f"not an acknowledgement of version {FORMAT_VERSION}")
    name, status, reason = document.get("file"), document.get("status"), document.get("reason")
    if not isinstance(name, str) or not name or len(name) > 255:
        raise AcknowledgementError("file must name the file acknowledged")
    if status not in STATUSES:
        raise AcknowledgementError(f"status must be one of {', '.join(STATUSES)}")
    if status == "rejected" and not (isinstance(reason, str) and reason.strip()):
        raise AcknowledgementError("a rejection must carry its reason")
    digest = document.get("sha256")
    if digest is not None and not (isinstance(digest, str) and len(digest) == 64):
        raise AcknowledgementError("sha256 must be 64 hexadecimal characters")
    return Acknowledgement(
        file=name,
        accepted=status == "accepted",
        reason=(reason or "").strip() if isinstance(reason, str) else "",
        sha256=digest.lower() if digest else None,
        entries=_count(document, "entries"),
        debit_total=_count(document, "debitTotal"),
        credit_total=_count(document, "creditTotal"),
    )


def acknowledgement_text(
    ack: Acknowledgement, *, file_id_modifier: str, entry_hash: str | None, received_at: datetime
) -> str:
    """The acknowledgement of one file, as a bank writes it (a line of JSON)."""
    document = {
        "acknowledgement": FORMAT_VERSION,
        "file": ack.file,
        "sha256": ack.sha256,
        "fileIdModifier": file_id_modifier,
        "status": STATUSES[0] if ack.accepted else STATUSES[1],
        "reason": ack.reason or None,
        "receivedAt": received_at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "entryHash": entry_hash,
        "entries": ack.entries,
        "debitTotal": ack.debit_total,
        "creditTotal": ack.credit_total,
    }
    return json.dumps(document) + "\n"
