"""What a chunk of a return / notice-of-change file does, once its items are matched and applied (returns.py
gathers them): an ordered list of named steps (moov-io/achgateway runs its inbound processors so), each a function
of the chunk's `Answers`, run in one database transaction, each writing in sets. `ANSWER_STEPS` is the order; a
new consequence of a return is one function here and its line in the list, and tests/transactions/ach/test_answers.py
holds the list and the reasons for its order.

The money a return moves is not a step: the returned rows move through the state owner (`rows_move`, step
"returned rows moved"), which is where a ledger posts each move (CONTRACT 17), in the same transaction."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from types import SimpleNamespace

from payments.models import PaymentMethod
from payments.services import MethodCorrections, MethodEvents, payment_methods_blocked_save
from transactions.charges.retry_attempts import RetryAnnouncements, retries_schedule
from transactions.charges.revocation import mandates_revoke_for_returns
from transactions.models import (
    ChangeNotice,
    DishonoredReturn,
    IngestionFile,
    ParkedReturnItem,
    RiskAction,
    Status,
    Transaction,
    TransactionReturn,
)
from transactions.return_codes import PolicyAction
from transactions.risk.account_rules import account_blocks_place
from transactions.risk.account_validation import validations_noticed, validations_returned
from transactions.risk.policies import ReturnFollowUp, return_followups_apply, risk_action
from transactions.state import Actor, Event, Move, moves_announce, rows_move, transaction_lock, transition_many
from vault.db import ids_in, rows_insert, rows_update

REVERSAL_VOIDED = "voided: the reversed debit was returned before this credit was sent"
REFUND_VOIDED = "voided: the refunded debit was returned before this credit was sent"
# What a return writes on its entry besides the status.
RETURNED_FIELDS = ("ingestion_file", "return_code", "late_returned_at")


@dataclass(kw_only=True)
class Answers:
    """What one chunk's items answer, gathered as they are applied (the rows they touch, locked), for the steps."""

    ingestion: IngestionFile
    at: datetime
    actor: Actor
    transactions: dict[int, Transaction]
    methods: dict[int, PaymentMethod]
    new_returns: list[TransactionReturn] = field(default_factory=list)
    new_notices: list[ChangeNotice] = field(default_factory=list)
    new_dishonors: list[DishonoredReturn] = field(default_factory=list)
    parked: list[ParkedReturnItem] = field(default_factory=list)
    late_ids: list[int] = field(default_factory=list)
    returned_reversals: list = field(default_factory=list)
    followups: list[ReturnFollowUp] = field(default_factory=list)
    method_blocks: list[tuple[PaymentMethod, Transaction, str]] = field(default_factory=list)
    method_events: MethodEvents = field(default_factory=MethodEvents)  # blocks and corrections, in file order
    corrections: MethodCorrections = field(init=False)
    corrected_names: dict[int, str] = field(default_factory=dict)  # method id -> holder's name (C04)
    mandate_revocations: dict[tuple[int, int], str] = field(default_factory=dict)  # (company, method) -> reason
    # What the steps hand on to later steps.
    returned: list[Transaction] = field(default_factory=list)
    moved: Mapping[Move, list] = field(default_factory=dict)
    retries: RetryAnnouncements | None = None

    def __post_init__(self) -> None:
        self.corrections = MethodCorrections(self.methods.values(), announce=self.method_events)


def methods_block(answers: Answers) -> None:
    """The saved methods the returns' policies blocked, and the evidence of each."""
    payment_methods_blocked_save([method for method, _txn, _code in answers.method_blocks])
    rows_insert(
        RiskAction,
        [
            risk_action(company_id=txn.company_id, action=PolicyAction.BLOCK_METHOD, at=answers.at, txn=txn, code=code)
            for _method, txn, code in answers.method_blocks
        ],
    )


def mandates_revoke(answers: Answers) -> None:
    """The mandates a revoking return ends, with their unsent debits and scheduled re-presentments."""
    mandates_revoke_for_returns(reasons=answers.mandate_revocations, actor=answers.actor, at=answers.at)


def methods_correct(answers: Answers) -> None:
    """The notices' corrections of saved methods, and the holder's corrected name on their entries not yet sent."""
    answers.corrections.write()
    _unsent_renamed(answers.corrected_names)


def _unsent_renamed(names: dict[int, str]) -> None:
    """The entries of these methods not yet in a file take the holder's corrected name (method id -> name)."""
    if not names:
        return  # a return file, or notices with no C04: no statement
    unsent = transaction_lock(
        Transaction.objects.filter(
            ids_in(names, field="payment_method_id"), batch__isnull=True, status__in=(Status.PENDING, Status.HELD)
        )
    ).order_by("pk")
    renamed = [
        SimpleNamespace(pk=pk, name=names[method_id]) for pk, method_id in unsent.values_list("pk", "payment_method_id")
    ]
    rows_update(Transaction, renamed, ["name"])


def method_events_write(answers: Answers) -> None:
    answers.method_events.write()


def returned_move(answers: Answers) -> None:
    """One UPDATE per returned row, before its return is inserted: the row already carries the return code the
    insert's trigger copies (so the trigger writes nothing), and a late return its late_returned_at. Each write of a
    row rewrites every one of its indexes, so one write instead of three is most of the import's cost."""
    late = set(answers.late_ids)
    for entry in answers.new_returns:
        txn = answers.transactions[entry.transaction_id]
        txn.ingestion_file_id, txn.return_code = answers.ingestion.pk, entry.return_code
        if txn.pk in late:
            txn.late_returned_at = answers.at
        answers.returned.append(txn)
    answers.moved = rows_move(answers.returned, Event.RETURNED, actor=answers.actor, fields=RETURNED_FIELDS)


def answers_insert(answers: Answers) -> None:
    """The returns, notices, dishonored returns (after the returns they may answer) and parked items."""
    rows_insert(TransactionReturn, answers.new_returns)
    rows_insert(ChangeNotice, answers.new_notices)
    rows_insert(DishonoredReturn, answers.new_dishonors)
    rows_insert(ParkedReturnItem, answers.parked)


def retries_plan(answers: Answers) -> None:
    """CONTRACT 15: the next presentment of each R01/R09 debit, which the returned events show."""
    answers.retries = retries_schedule(answers.returned, at=answers.at)


def moves_tell(answers: Answers) -> None:
    """The returned rows' trail and webhooks: they read each row's return entry, so after the insert."""
    reasons = {entry.transaction_id: f"{entry.return_code} {entry.return_reason}" for entry in answers.new_returns}
    moves_announce(answers.moved, actor=answers.actor, at=answers.at, reasons=reasons)


def retries_tell(answers: Answers) -> None:
    """The retries' own events, after the returns' events that show them."""
    if answers.retries is not None:
        answers.retries.send()


def credits_void(answers: Answers) -> None:
    """The reversal credit of a returned reversed debit, and a refund of a returned debit, while still unsent: the
    payer's bank gave the money back with the return, so either would pay it twice."""
    for pending, reason in (
        (Transaction.objects.filter(uuid__in=answers.returned_reversals), REVERSAL_VOIDED),
        (Transaction.objects.filter(ids_in(answers.late_ids, field="refund_of_id")), REFUND_VOIDED),
    ):
        transition_many(
            pending.filter(status=Status.PENDING),
            Event.VOIDED,
            actor=answers.actor,
            at=answers.at,
            changes={"voided_at": answers.at, "failure_reason": reason},
            reason=reason,
        )


def noticed_mark(answers: Answers) -> None:
    """Each noticed entry names the file that brought its notice."""
    noticed = [notice.transaction_id for notice in answers.new_notices]
    Transaction.objects.filter(ids_in(noticed)).update(ingestion_file=answers.ingestion)


def followups_apply(answers: Answers) -> None:
    """The return-rate program's actions the returns' policies asked for."""
    return_followups_apply(answers.followups, at=answers.at)


def accounts_block(answers: Answers) -> None:
    returns = [(answers.transactions[entry.transaction_id], entry.return_code) for entry in answers.new_returns]
    account_blocks_place(returns, at=answers.at, methods=answers.methods)


def validations_answer(answers: Answers) -> None:
    """Validation entries (prenotes, micro-entries): a return fails the validation, a NOC on a prenote passes it."""
    validations_returned(
        transaction_ids=_validation_entries(answers, answers.new_returns), actor=answers.actor, at=answers.at
    )
    validations_noticed(
        transaction_ids=_validation_entries(answers, answers.new_notices), actor=answers.actor, at=answers.at
    )


def _validation_entries(answers: Answers, answered: Sequence[TransactionReturn | ChangeNotice]) -> list[int]:
    """Of the entries these returns or notices answer, those that validate an account (their rows are here)."""
    return [
        answer.transaction_id
        for answer in answered
        if answers.transactions[answer.transaction_id].account_validation_id is not None
    ]


# The order of a chunk's writes, top first (each step's docstring says why it stands where it does).
ANSWER_STEPS: tuple[tuple[str, Callable[[Answers], None]], ...] = (
    ("methods blocked", methods_block),
    ("mandates revoked", mandates_revoke),
    ("methods corrected", methods_correct),
    ("method events", method_events_write),
    ("returned rows moved", returned_move),  # through the state owner, which posts the ledger's entries of a move
    ("answers recorded", answers_insert),
    ("retries scheduled", retries_plan),
    ("moves announced", moves_tell),
    ("retries announced", retries_tell),
    ("unsent credits voided", credits_void),
    ("notices marked", noticed_mark),
    ("return-rate follow-ups", followups_apply),
    ("accounts blocked", accounts_block),
    ("validations answered", validations_answer),
)


def answers_apply(answers: Answers) -> None:
    for _name, step in ANSWER_STEPS:
        step(answers)
