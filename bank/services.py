"""What an operator does to a bank file from the admin: send a rejected file's entries again, in a new file (the
next file id modifier of its window), never automatically."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from django.db import transaction

from bank.models import BankFile, BankFileStatus, InboundFile
from bank.state import BankFileEvent, bank_file_move
from transactions.ach.origination import origination_file_again


class ResendRefused(Exception):
    pass


class AnswerRefused(Exception):
    pass


def bank_file_answer_decide(*, bank_file: BankFile, accepted: bool, at: datetime) -> BankFile:
    """An operator, having asked the bank, says which of its contradicting answers holds (CONTRACT 16): the file
    becomes acknowledged (its entries settle) or rejected (sent again only from the admin)."""
    event = BankFileEvent.OPERATOR_ACCEPTED if accepted else BankFileEvent.OPERATOR_REJECTED
    fields = {"answered_at": at}
    if not accepted:
        fields["rejected_reason"] = f"rejected, as the bank confirmed to an operator: {bank_file.exception}"[:500]
    moved = bank_file_move(bank_file=bank_file, event=event, **fields)
    if moved is None:
        raise AnswerRefused(f"{bank_file.name} is not an exception: nothing to decide")
    return moved


@transaction.atomic
def bank_file_resend(*, bank_file: BankFile, at: datetime) -> BankFile:
    """The rejected file's batches move to a new NACHA file, written now and pending for `transmit_files`."""
    locked = BankFile.objects.select_for_update().select_related("origination_file").get(pk=bank_file.pk)
    if locked.status != BankFileStatus.REJECTED:
        raise ResendRefused(f"{locked.name} is {locked.status}: only a rejected file is sent again")
    if locked.resent_as_id is not None:
        raise ResendRefused(f"{locked.name} was sent again already, as {locked.resent_as.name}")
    again = origination_file_again(origination_file=locked.origination_file, at=at)
    resent = BankFile.objects.create(origination_file=again, name=Path(again.path).name, created_at=at)
    locked.resent_as = resent
    locked.save(update_fields=["resent_as"])
    return resent


def inbound_files_set_aside(*, names: list[str], at: datetime) -> int:
    """Refused inbound files an operator settled with the bank (a file it will never complete, or sent again under
    another name): no longer read again. How many were set aside."""
    return InboundFile.objects.filter(name__in=names, state=InboundFile.State.REFUSED).update(
        state=InboundFile.State.SET_ASIDE, applied_at=at
    )


def bank_file_send_outside(*, bank_file: BankFile) -> BankFile:
    """An `outside` file (written while no connection was set, or its entries settled before it had a bank record)
    goes to the bank by the next `transmit_files`, at an operator's word only (ACH review 2026-12-07 H4)."""
    moved = bank_file_move(bank_file=bank_file, event=BankFileEvent.OPERATOR_SENDS)
    if moved is None:
        raise ResendRefused(f"{bank_file.name} is {bank_file.status}: only an outside file is sent this way")
    return moved


def bank_file_at_bank(*, bank_file: BankFile, has_it: bool, at: datetime) -> BankFile:
    """A pending file an earlier run renamed into place and the server no longer holds: the operator asked the
    bank. It has it: transmitted (its acknowledgement answers it). It has not: the next `transmit_files` sends it."""
    with transaction.atomic():
        locked = BankFile.objects.select_for_update().get(pk=bank_file.pk)
        if locked.status != BankFileStatus.PENDING or locked.renamed_at is None:
            raise ResendRefused(f"{locked.name} is not a file that may be at the bank unrecorded")
        if not has_it:
            locked.renamed_at = None
            locked.save(update_fields=["renamed_at"])
            return locked
        return bank_file_move(bank_file=locked, event=BankFileEvent.TRANSMIT, transmitted_at=at, last_error="")
