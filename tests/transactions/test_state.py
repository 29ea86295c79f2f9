"""The state machine (transactions.state): every (status, event) pair of the table, legal and illegal, its
callers and preconditions, the bulk forms, and a scan proving no other code writes a transaction's status."""

from __future__ import annotations

import ast
import itertools
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests import factories
from transactions.models import Status, Transaction, TransactionEvent
from transactions.state import (
    BIRTHS,
    MOVES,
    TABLE,
    Actor,
    Caller,
    CallerNotAllowed,
    Event,
    Move,
    TransitionRefused,
    transaction_create,
    transition,
    transition_many,
)

AT = datetime(2026, 12, 7, 15, tzinfo=UTC)
ACTORS = {caller: Actor(caller, f"{caller}-tester") for caller in Caller}
MOVING_EVENTS = [event for event in Event if event != Event.CREATED]
SHAPES = [{"method": method, "type": kind} for method in ("ACH", "RCC", "RTP", "CRD") for kind in ("Debit", "Credit")]


def _meeting(move: Move | None) -> dict:
    """A method and type that meet the move's precondition (any for a move the table does not have)."""
    if move is None or move.precondition is None:
        return SHAPES[0]
    return next(shape for shape in SHAPES if move.precondition(Transaction(**shape)))


def _row(company, status: str, **shape) -> Transaction:
    return factories.TransactionFactory(company=company, status=status, **shape)


def _trail(txn: Transaction) -> list[tuple[str, str, str]]:
    return list(
        TransactionEvent.objects.filter(transaction=txn)
        .exclude(event=Event.CREATED)
        .order_by("id")
        .values_list("event", "from_status", "to_status")
    )


@pytest.mark.django_db
@pytest.mark.parametrize(("status", "event"), list(itertools.product(Status.values, MOVING_EVENTS)))
def test_every_status_and_event_moves_exactly_as_the_table_says(company, status, event):
    move = TABLE.get((status, event))
    txn = _row(company, status, **_meeting(move))
    callers = sorted(move.callers) if move else list(Caller)
    if move is None:
        with pytest.raises(TransitionRefused) as refused:
            transition(txn, event, actor=ACTORS[callers[0]], at=AT)
        assert refused.value.status == 409
        txn.refresh_from_db()
        assert txn.status == status
        assert _trail(txn) == []
        return
    transition(txn, event, actor=ACTORS[callers[0]], at=AT, reason="walked")
    assert txn.status == move.target
    txn.refresh_from_db()
    assert txn.status == move.target
    recorded = TransactionEvent.objects.filter(transaction=txn).exclude(event=Event.CREATED).get()
    assert (recorded.event, recorded.from_status, recorded.to_status) == (event, status, move.target)
    assert (recorded.caller, recorded.actor, recorded.reason, recorded.at) == (
        callers[0],
        f"{callers[0]}-tester",
        "walked",
        AT,
    )
    assert recorded.company_id == company.pk


@pytest.mark.django_db
@pytest.mark.parametrize(
    "move", [move for move in MOVES if move.source is not None], ids=lambda move: f"{move.source}-{move.event}"
)
def test_a_caller_the_table_does_not_list_may_not_cause_the_move(company, move):
    txn = _row(company, move.source, **_meeting(move))
    for caller in set(Caller) - move.callers:
        with pytest.raises(CallerNotAllowed):
            transition(txn, move.event, actor=ACTORS[caller], at=AT)
    txn.refresh_from_db()
    assert txn.status == move.source
    assert _trail(txn) == []


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("status", "event", "failing"),
    [
        (Status.SETTLED, Event.REVERSED, {"type": "Credit"}),  # only a debit is reversed
        (Status.PENDING, Event.ORIGINATED, {"method": "CRD"}),  # only ACH and RCC go in a NACHA file
        (Status.PENDING, Event.SETTLED, {"method": "ACH"}),  # an ACH debit settles from Processing only
        (Status.PENDING, Event.DECLINED, {"method": "RTP"}),  # an RTP charge is never Pending to be declined
        (Status.PENDING, Event.CORRECTED, {"method": "CRD"}),  # only an entry of a NACHA file is corrected
    ],
)
def test_a_move_whose_precondition_fails_is_refused(company, status, event, failing):
    txn = _row(company, status, **failing)
    with pytest.raises(TransitionRefused):
        transition(txn, event, actor=ACTORS[sorted(TABLE[(status, event)].callers)[0]], at=AT)
    txn.refresh_from_db()
    assert txn.status == status


def test_refusals_keep_the_wire_messages():
    void = TransitionRefused(Transaction(status=Status.SETTLED, type="Debit"), Event.VOIDED)
    assert (void.message, void.errors[0]["code"]) == (
        "only a Pending transaction can be voided; this one is Settled",
        "not_voidable",
    )
    reverse = TransitionRefused(Transaction(status=Status.PENDING, type="Credit"), Event.REVERSED)
    assert (reverse.message, reverse.errors[0]["code"]) == (
        "only a Settled Debit can be reversed; this is a Pending Credit",
        "not_reversible",
    )
    reject = TransitionRefused(Transaction(status=Status.VOIDED, type="Debit"), Event.REJECTED)
    assert (reject.message, reject.errors[0]["code"]) == ("a Voided transaction cannot be rejected", "invalid_status")


@pytest.mark.django_db
@pytest.mark.parametrize("status", Status.values)
def test_a_transaction_is_born_only_in_a_birth_status_with_its_created_event(company, status):
    txn = Transaction(company=company, method="RTP", type="Debit", amount=100, effective_date=AT.date(), created_at=AT)
    if status not in BIRTHS:
        with pytest.raises(CallerNotAllowed):
            transaction_create(txn, status=status, actor=ACTORS[Caller.API])
        assert not Transaction.objects.exists()
        return
    transaction_create(txn, status=status, actor=ACTORS[Caller.API])
    created = TransactionEvent.objects.get(transaction=txn)
    assert (created.event, created.from_status, created.to_status) == ("created", "", status)
    assert (created.caller, created.actor, created.at) == ("api", "api-tester", AT)
    with pytest.raises(CallerNotAllowed):
        transaction_create(
            Transaction(company=company, method="RTP", type="Debit", amount=1, effective_date=AT.date()),
            status=status,
            actor=ACTORS[Caller.ADMIN],
        )


@pytest.mark.django_db
def test_bulk_moves_only_the_rows_the_table_allows_with_one_event_each(company):
    processing = [_row(company, Status.PROCESSING) for _ in range(3)]
    voided = _row(company, Status.VOIDED)
    moved = transition_many(
        Transaction.objects.filter(company=company),
        Event.SETTLED,
        actor=ACTORS[Caller.COMMAND],
        at=AT,
        reasons={processing[0].pk: "first"},
        reason="the rest",
        read=("amount",),
    )
    assert sorted(moved) == sorted((txn.pk, txn.amount) for txn in processing)
    assert set(Transaction.objects.filter(company=company).values_list("status", flat=True)) == {
        Status.SETTLED,
        Status.VOIDED,
    }
    assert _trail(voided) == []
    reasons = dict(TransactionEvent.objects.filter(event=Event.SETTLED).values_list("transaction_id", "reason"))
    assert reasons == {processing[0].pk: "first", processing[1].pk: "the rest", processing[2].pk: "the rest"}


# --- Nothing but transactions.state writes a transaction's status ---------------------------------------------

ROOT = Path(__file__).resolve().parents[2]
OWNER = ROOT / "transactions" / "state.py"
# Sample data (seed_transactions) is born in every status at once and carries no trail (README: sample data).
SAMPLE_DATA = ROOT / "sampledata" / "seeding.py"
# The bank file's own table of moves writes a BankFile's status; it reaches transactions only for the origination
# file it holds back from settlement.
BANK_FILE_OWNER = ROOT / "bank" / "state.py"
WRITING_CALLS = {"update", "create", "get_or_create", "update_or_create", "bulk_update", "bulk_create", "Transaction"}


def _callee(call: ast.Call) -> str:
    return call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")


def _is_status_attribute(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "status"
        and not (isinstance(node.value, ast.Name) and node.value.id == "self")
    )


def _names_status(node: ast.AST) -> bool:
    return any(isinstance(each, ast.Constant) and each.value == "status" for each in ast.walk(node))


def status_writes(source: str) -> list[int]:
    """Lines that write a `status`: `x.status = ...`, `status=` given to an ORM write or a Transaction,
    "status" in update_fields or a bulk_update's fields, setattr(x, "status", ...), SQL `SET status`."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            flat = [each for target in targets for each in ast.walk(target)]
            # `self.status` is another class's own attribute (ApiError's HTTP status): Transaction sets none.
            if any(_is_status_attribute(each) for each in flat):
                lines.append(node.lineno)
        elif isinstance(node, ast.Call):
            callee = _callee(node)
            keywords = {keyword.arg: keyword.value for keyword in node.keywords}
            if callee in WRITING_CALLS and "status" in keywords:
                lines.append(node.lineno)
            if "update_fields" in keywords and _names_status(keywords["update_fields"]):
                lines.append(node.lineno)
            if callee == "bulk_update" and any(_names_status(arg) for arg in node.args[1:]):
                lines.append(node.lineno)
            if callee == "setattr" and len(node.args) > 1 and _names_status(node.args[1]):
                lines.append(node.lineno)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if "set status" in " ".join(node.value.lower().replace('"', " ").split()):
                lines.append(node.lineno)
    return lines


def _uses_transactions(source: str) -> bool:
    """Whether a module can reach a Transaction at all: other models (webhook deliveries) have statuses too."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "transactions":
            return True
        if isinstance(node, ast.Import) and any(alias.name.split(".")[0] == "transactions" for alias in node.names):
            return True
    return False


def test_the_scan_finds_each_kind_of_status_write():
    samples = [
        "txn.status = 'Voided'",
        "Transaction.objects.filter(pk=1).update(status='Voided')",
        "Transaction(status='Pending')",
        "txn.save(update_fields=['status', 'voided_at'])",
        "Transaction.objects.bulk_update(rows, ['status'])",
        "setattr(txn, 'status', 'Voided')",
        "cursor.execute('UPDATE transactions_transaction SET \"status\" = %s')",
    ]
    assert [status_writes(sample) for sample in samples] == [[1]] * len(samples)
    assert status_writes("Response(body, status=201)\nfilter(status='Pending')") == []


def test_no_code_outside_transactions_state_writes_a_transaction_status():
    offenders = []
    for path in sorted(ROOT.rglob("*.py")):
        relative = path.relative_to(ROOT)
        if relative.parts[0] in {".venv", "tests", "var"} or "migrations" in relative.parts:
            continue
        if path in (OWNER, SAMPLE_DATA, BANK_FILE_OWNER):
            continue
        source = path.read_text()
        if _uses_transactions(source):
            offenders += [f"{relative}:{line}" for line in status_writes(source)]
    assert offenders == []
