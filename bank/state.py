"""A bank file's status has one owner: `MOVES` lists every (status, event) -> status, and `bank_file_move` locks the
record, checks the table, writes the status with what goes with it and records the `ach_file.*` event of each
company whose entries the file carries, in one database transaction."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from django.conf import settings
from django.db import transaction

from bank.models import BankFile, BankFileStatus
from bank.selectors import entry_figures
from events.outbox import EventDraft, events_record
from events.types import EventType
from transactions.models import OriginationFile
from vault.records import iso_utc


class BankFileEvent(StrEnum):
    TRANSMIT = "transmit"
    ACKNOWLEDGE = "acknowledge"
    REJECT = "reject"
    TIME_OUT = "time_out"
    CONTRADICT = "contradict"  # a second answer of the bank that says otherwise than the first
    OPERATOR_ACCEPTED = "operator_accepted"  # an operator, having asked the bank, says which answer holds
    OPERATOR_REJECTED = "operator_rejected"
    OPERATOR_SENDS = "operator_sends"  # an `outside` file, sent through the connection at an operator's word


S = BankFileStatus
MOVES: dict[tuple[str, BankFileEvent], str] = {
    (S.PENDING, BankFileEvent.TRANSMIT): S.TRANSMITTED,
    (S.TRANSMITTED, BankFileEvent.ACKNOWLEDGE): S.ACKNOWLEDGED,
    (S.TRANSMITTED, BankFileEvent.REJECT): S.REJECTED,
    (S.TRANSMITTED, BankFileEvent.TIME_OUT): S.UNACKNOWLEDGED,
    # An acknowledgement that comes after the deadline still answers the file.
    (S.UNACKNOWLEDGED, BankFileEvent.ACKNOWLEDGE): S.ACKNOWLEDGED,
    (S.UNACKNOWLEDGED, BankFileEvent.REJECT): S.REJECTED,
    # The bank's last word is not ours to choose: answers that contradict each other wait for an operator.
    (S.ACKNOWLEDGED, BankFileEvent.CONTRADICT): S.EXCEPTION,
    (S.REJECTED, BankFileEvent.CONTRADICT): S.EXCEPTION,
    (S.EXCEPTION, BankFileEvent.OPERATOR_ACCEPTED): S.ACKNOWLEDGED,
    (S.EXCEPTION, BankFileEvent.OPERATOR_REJECTED): S.REJECTED,
    (S.OUTSIDE, BankFileEvent.OPERATOR_SENDS): S.PENDING,
}
EVENT_TYPES = {
    S.TRANSMITTED: EventType.ACH_FILE_TRANSMITTED,
    S.ACKNOWLEDGED: EventType.ACH_FILE_ACKNOWLEDGED,
    S.REJECTED: EventType.ACH_FILE_REJECTED,
    S.UNACKNOWLEDGED: EventType.ACH_FILE_UNACKNOWLEDGED,
    S.EXCEPTION: EventType.ACH_FILE_EXCEPTION,
}


def can_move(status: str, event: BankFileEvent) -> bool:
    return (status, event) in MOVES


def bank_file_record(bank_file: BankFile) -> dict[str, Any]:
    """What an `ach_file.*` event says of the file (each company gets its own entries' figures beside it)."""
    origination_file = bank_file.origination_file
    return {
        "uuid": str(bank_file.uuid),
        "originationFileUuid": str(origination_file.uuid),
        "name": bank_file.name,
        "fileIdModifier": origination_file.file_id_modifier,
        "status": bank_file.status,
        "attempts": bank_file.attempts,
        "transmittedAt": iso_utc(bank_file.transmitted_at),
        "answeredAt": iso_utc(bank_file.answered_at),
        "rejectedReason": bank_file.rejected_reason or None,
        "exception": bank_file.exception or None,
    }


def _settlement_hold(bank_file: BankFile) -> None:
    """Whether the file's entries may settle (`settle` reads OriginationFile.awaiting_bank): once the bank accepted
    the file (CONTRACT 16, "the bank's word is final"), never while it is only transmitted, unanswered, rejected or
    in dispute. A bank that sends no acknowledgements (BANK_SENDS_ACKNOWLEDGEMENTS=0) has taken a file once it is on
    its server. A file the operator carried by hand (`outside`) keeps what it had."""
    if bank_file.status == S.OUTSIDE:
        return
    taken = (S.ACKNOWLEDGED,)
    if not settings.BANK_SENDS_ACKNOWLEDGEMENTS:
        taken = (S.ACKNOWLEDGED, S.TRANSMITTED, S.UNACKNOWLEDGED)
    awaiting = bank_file.status not in taken
    OriginationFile.objects.filter(pk=bank_file.origination_file_id).update(awaiting_bank=awaiting)
    bank_file.origination_file.awaiting_bank = awaiting


@transaction.atomic
def bank_file_move(*, bank_file: BankFile, event: BankFileEvent, **fields: Any) -> BankFile | None:
    """Lock, check the table, write, record the events. None when the file is no longer where the move starts
    (another run moved it first): nothing is written."""
    locked = BankFile.objects.select_for_update().select_related("origination_file").get(pk=bank_file.pk)
    if not can_move(locked.status, event):
        return None
    locked.status = MOVES[(locked.status, event)]
    for name, value in fields.items():
        setattr(locked, name, value)
    locked.save(update_fields=["status", *fields])
    _settlement_hold(locked)
    record = bank_file_record(locked)
    events_record(
        [
            EventDraft(
                company_id=company_id,
                type=EVENT_TYPES[locked.status],
                object_uuid=locked.uuid,
                data={**record, "entries": figures},
            )
            for company_id, figures in sorted(entry_figures(locked.origination_file_id).items())
            if locked.status in EVENT_TYPES  # back to pending: nothing the companies hear of
        ]
    )
    return locked
