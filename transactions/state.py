"""The one owner of a transaction's status: the transition table, the row lock, and the trail.

Every status a transaction ever has is written here and nowhere else (tests/transactions/test_state.py
fails on a write anywhere else): its birth by `transaction_create`, each later move by `transition` (one row)
or `transition_many` / `transition_rows` (the lifecycle commands, thousands of rows in a few statements).
Each writes the status and appends a TransactionEvent per row in the same database transaction, so the
change and its record commit or roll back together."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from django.core.exceptions import ImproperlyConfigured
from django.db import connection, models, transaction
from django.db.models import Case, Q, QuerySet, Value, When

from accounts.authentication import ApiKeyPrincipal
from events.types import EventType
from ledger.models import Account, EntryType
from ledger.postings import HOLDER, Leg, Template, template_post
from transactions.events import (
    transaction_created_event,
    transaction_event,
    transaction_insert_announced,
    transactions_event,
)
from transactions.methods import METHODS, method_kind
from transactions.models import (
    Finality,
    Status,
    Transaction,
    TransactionEvent,
    TransactionHold,
    TransactionType,
)
from vault.commands import Progress, no_progress
from vault.db import RowInsert, array_literal, ids_in, rows_update
from vault.error_codes import ErrorCode
from vault.errors import Conflict


class Event(models.TextChoices):
    CREATED = "created"
    RELEASED = "released"
    REJECTED = "rejected"
    RESTORED = "restored"
    ACKNOWLEDGED = "acknowledged"
    VOIDED = "voided"
    ORIGINATED = "originated"
    SETTLED = "settled"
    DECLINED = "declined"
    RETURNED = "returned"
    REVERSED = "reversed"
    CORRECTED = "corrected"
    FUNDS_AVAILABLE = "funds_available"
    MANDATE_REVOKED = "mandate_revoked"


class Caller(models.TextChoices):
    API = "api", "API route"
    ADMIN = "admin", "admin action"
    COMMAND = "command", "ops command"


@dataclass(frozen=True)
class Actor:
    """Who causes a change: the kind of caller the table allows, and the API key, user or command."""

    caller: Caller
    id: str

    @classmethod
    def of_request(cls, request) -> Actor:
        principal = request.user
        if isinstance(principal, ApiKeyPrincipal):
            return cls(Caller.API, f"api_key:{principal.api_key.pk}")
        return cls(Caller.API, f"user:{principal.pk}")

    @classmethod
    def admin(cls, user) -> Actor:
        return cls(Caller.ADMIN, f"user:{user.pk}")

    @classmethod
    def command(cls, name: str) -> Actor:
        return cls(Caller.COMMAND, name)


def _is_debit(txn: Transaction) -> bool:
    return txn.type == TransactionType.DEBIT


def _settles_outside_file(txn: Transaction) -> bool:
    return method_kind(txn.method).settles_outside_file


def _is_captured_by_settle(txn: Transaction) -> bool:
    return method_kind(txn.method).captured_by_settle


def _is_in_nacha_file(txn: Transaction) -> bool:
    return method_kind(txn.method).in_nacha_file


def _declinable_when_pending(txn: Transaction) -> bool:
    return _is_captured_by_settle(txn) or _is_in_nacha_file(txn)


@dataclass(frozen=True)
class Move:
    """(source, event) -> target, who may cause it, and what else must hold of the row. `source` None is the
    birth of the row."""

    source: str | None
    event: Event
    target: str
    callers: frozenset[Caller]
    precondition: Callable[[Transaction], bool] | None = None
    why: str = ""
    # Where the move takes the money (docs/ledger.md, "The journal templates"): a template per transaction type.
    postings: tuple[tuple[str, Template], ...] = ()

    def template(self, type: str) -> Template | None:
        return dict(self.postings).get(type)


API, ADMIN, COMMAND = Caller.API, Caller.ADMIN, Caller.COMMAND
PENDING, HELD, DECLINED, SETTLED = Status.PENDING, Status.HELD, Status.DECLINED, Status.SETTLED

DEBIT, CREDIT = TransactionType.DEBIT, TransactionType.CREDIT
INCOMING, PENDING_FUNDS, AVAILABLE, OUTGOING = Account.INCOMING, Account.PENDING, Account.AVAILABLE, Account.OUTGOING
BANK, CLEARING = Account.BANK, Account.CLEARING


def _legs(type: str, *legs: tuple[str, str]) -> Template:
    return Template(type, tuple(Leg(source, target) for source, target in legs))


# The journal templates (docs/ledger.md has the same table). HOLDER is where a settled debit's money is: `pending`
# until its funds are available, `available` after (RTP and cards settle straight into `available`).
CREDIT_TAKEN = ((CREDIT, _legs(EntryType.CREDIT, (AVAILABLE, OUTGOING))),)
CREDIT_GIVEN_BACK = ((CREDIT, _legs(EntryType.CREDIT, (OUTGOING, AVAILABLE))),)
ORIGINATION = ((DEBIT, _legs(EntryType.CHARGE, (CLEARING, INCOMING))),)
FILE_SETTLEMENT = (
    (DEBIT, _legs(EntryType.SETTLEMENT, (INCOMING, HOLDER), (BANK, CLEARING))),
    (CREDIT, _legs(EntryType.SETTLEMENT, (OUTGOING, BANK))),
)
OUTSIDE_SETTLEMENT = (
    (DEBIT, _legs(EntryType.SETTLEMENT, (BANK, HOLDER))),
    (CREDIT, _legs(EntryType.SETTLEMENT, (OUTGOING, BANK))),
)
BORN_SETTLED = (
    (DEBIT, _legs(EntryType.SETTLEMENT, (BANK, HOLDER))),
    (CREDIT, _legs(EntryType.SETTLEMENT, (AVAILABLE, BANK))),
)
RETURN = (
    (DEBIT, _legs(EntryType.RETURN, (INCOMING, CLEARING))),
    (CREDIT, _legs(EntryType.RETURN, (OUTGOING, AVAILABLE))),
)
LATE_RETURN = (
    (DEBIT, _legs(EntryType.RETURN, (HOLDER, BANK))),
    (CREDIT, _legs(EntryType.RETURN, (BANK, AVAILABLE))),
)
FUNDS_AVAILABLE = ((DEBIT, _legs(EntryType.FUNDS_AVAILABLE, (PENDING_FUNDS, AVAILABLE))),)

MOVES: tuple[Move, ...] = (
    # Birth: a charge (PUT /transactions, or bootstrap_demo) or a reversal's credit.
    Move(
        None,
        Event.CREATED,
        PENDING,
        frozenset({API, COMMAND}),
        why="accepted; ACH/RCC wait for originate",
        postings=CREDIT_TAKEN,
    ),
    Move(None, Event.CREATED, HELD, frozenset({API, COMMAND}), why="risk hold", postings=CREDIT_TAKEN),
    Move(None, Event.CREATED, DECLINED, frozenset({API, COMMAND}), why="risk decline, or a card that has expired"),
    Move(
        None,
        Event.CREATED,
        SETTLED,
        frozenset({API, COMMAND}),
        _settles_outside_file,
        why="RTP settles at once",
        postings=BORN_SETTLED,
    ),
    # release_holds, or the account validation a `prenote_first` debit waited for (settle, or a confirm route).
    Move(
        HELD, Event.RELEASED, PENDING, frozenset({COMMAND, ADMIN, API}), why="release_holds, or its account validated"
    ),
    Move(
        HELD,
        Event.DECLINED,
        DECLINED,
        frozenset({COMMAND, API}),
        why="the account validation it waited for failed",
        postings=CREDIT_GIVEN_BACK,
    ),
    Move(PENDING, Event.REJECTED, Status.REJECTED, frozenset({ADMIN}), why="not sent yet", postings=CREDIT_GIVEN_BACK),
    Move(HELD, Event.REJECTED, Status.REJECTED, frozenset({ADMIN}), why="not sent yet", postings=CREDIT_GIVEN_BACK),
    Move(
        Status.REJECTED,
        Event.RESTORED,
        PENDING,
        frozenset({ADMIN}),
        why="processed again as a new charge",
        postings=CREDIT_TAKEN,
    ),
    # A void by the merchant, or import_returns voiding a reversal credit whose debit came back unsent.
    Move(PENDING, Event.VOIDED, Status.VOIDED, frozenset({API, COMMAND}), postings=CREDIT_GIVEN_BACK),
    # Its mandate revoked (by the merchant, support or a return: transactions.charges.revocation), a debit not yet in
    # a file is voided, held or not; `release_holds` voids a held one whose mandate is not active.
    *(
        Move(
            source,
            Event.MANDATE_REVOKED,
            Status.VOIDED,
            frozenset({API, ADMIN, COMMAND}),
            why="its mandate revoked",
            postings=CREDIT_GIVEN_BACK,
        )
        for source in (PENDING, HELD)
    ),
    Move(
        PENDING,
        Event.ORIGINATED,
        Status.PROCESSING,
        frozenset({COMMAND}),
        _is_in_nacha_file,
        why="in a NACHA file",
        postings=ORIGINATION,
    ),
    Move(
        Status.PROCESSING,
        Event.SETTLED,
        SETTLED,
        frozenset({COMMAND}),
        why="its file was sent and the day came",
        postings=FILE_SETTLEMENT,
    ),
    # A card captured by settle; an RTP charge settling at once when its hold is released or it is restored.
    Move(
        PENDING, Event.SETTLED, SETTLED, frozenset({COMMAND, ADMIN}), _settles_outside_file, postings=OUTSIDE_SETTLEMENT
    ),
    # A card that expired before its hold was released or it was restored; an entry `originate` finds going to an
    # account a return has blocked since it was accepted.
    Move(
        PENDING,
        Event.DECLINED,
        DECLINED,
        frozenset({COMMAND, ADMIN}),
        _declinable_when_pending,
        postings=CREDIT_GIVEN_BACK,
    ),
    # `originate` sends it to the account a notice of change corrected since it was accepted.
    Move(PENDING, Event.CORRECTED, PENDING, frozenset({COMMAND}), _is_in_nacha_file, why="account corrected by a NOC"),
    Move(Status.PROCESSING, Event.RETURNED, Status.RETURNED, frozenset({COMMAND}), postings=RETURN),
    Move(SETTLED, Event.RETURNED, Status.RETURNED, frozenset({COMMAND}), why="a late return", postings=LATE_RETURN),
    Move(
        Status.REVERSED,
        Event.RETURNED,
        Status.RETURNED,
        frozenset({COMMAND}),
        why="a late return",
        postings=LATE_RETURN,
    ),
    Move(SETTLED, Event.REVERSED, Status.REVERSED, frozenset({API}), _is_debit, why="an offsetting credit"),
    # mark_final: a settled debit's funds become available; the status stays.
    Move(SETTLED, Event.FUNDS_AVAILABLE, SETTLED, frozenset({COMMAND}), _is_debit, postings=FUNDS_AVAILABLE),
    # Acknowledging an exception records who saw it; the status stays.
    *(Move(status, Event.ACKNOWLEDGED, status, frozenset({ADMIN})) for status in Status.values),
)

BIRTHS: dict[str, Move] = {move.target: move for move in MOVES if move.source is None}
TABLE: dict[tuple[str, str], Move] = {(move.source, move.event): move for move in MOVES if move.source is not None}
if len(BIRTHS) + len(TABLE) != len(MOVES):
    raise ImproperlyConfigured("two moves of transactions.state share a (source, event) or a birth status")

# Where a transaction's money is in each status (per unit of its amount), from which every move's postings follow:
# a move's template must move the money from its source's position to its target's (checked below, at import), so
# no move that changes where money is can leave it unnamed. A status-keeping move (funds available) names its own.
POSITIONS: dict[tuple[str, str], dict[str, int]] = {
    (DEBIT, Status.PROCESSING): {INCOMING: 1, CLEARING: -1},
    (DEBIT, SETTLED): {HOLDER: 1, BANK: -1},
    (DEBIT, Status.REVERSED): {HOLDER: 1, BANK: -1},  # the reversal's credit is a transaction of its own
    **{(CREDIT, status): {OUTGOING: 1, AVAILABLE: -1} for status in (PENDING, HELD, Status.PROCESSING)},
    **{(CREDIT, status): {BANK: 1, AVAILABLE: -1} for status in (SETTLED, Status.REVERSED)},  # credits: never reversed
}


def _position_change(type: str, move: Move) -> dict[str, int]:
    before, after = POSITIONS.get((type, move.source), {}), POSITIONS.get((type, move.target), {})
    change = {account: after.get(account, 0) - before.get(account, 0) for account in {*before, *after}}
    return {account: amount for account, amount in change.items() if amount}


def _check_postings() -> None:
    wrong = [
        f"{move.source} -{move.event}-> {move.target} ({type})"
        for move in MOVES
        for type in TransactionType.values
        if move.source != move.target
        and (move.template(type).net() if move.template(type) else {}) != _position_change(type, move)
    ]
    if wrong:
        raise ImproperlyConfigured(f"moves of transactions.state that move money without naming it rightly: {wrong}")


_check_postings()

# The 409 a refused move answers with, for the moves a client or operator asks for by name.
REFUSALS: dict[str, tuple[str, str]] = {
    Event.VOIDED: ("only a Pending transaction can be voided; this one is {status}", ErrorCode.NOT_VOIDABLE),
    Event.REVERSED: ("only a Settled Debit can be reversed; this is a {status} {type}", ErrorCode.NOT_REVERSIBLE),
}


# The webhook each move announces (CONTRACT 9); a birth announces transaction.created and, unless born Pending,
# the status it was born in (transactions.events). Acknowledging announces nothing.
WEBHOOKS: dict[str, str] = {
    Event.RELEASED: EventType.TRANSACTION_RELEASED,
    Event.REJECTED: EventType.TRANSACTION_REJECTED,
    Event.RESTORED: EventType.TRANSACTION_RESTORED,
    Event.VOIDED: EventType.TRANSACTION_VOIDED,
    Event.MANDATE_REVOKED: EventType.TRANSACTION_VOIDED,
    Event.ORIGINATED: EventType.TRANSACTION_PROCESSING,
    Event.SETTLED: EventType.TRANSACTION_SETTLED,
    Event.DECLINED: EventType.TRANSACTION_DECLINED,
    Event.RETURNED: EventType.TRANSACTION_RETURNED,
    Event.REVERSED: EventType.TRANSACTION_REVERSED,
    Event.CORRECTED: EventType.TRANSACTION_UPDATED,
    Event.FUNDS_AVAILABLE: EventType.TRANSACTION_FUNDS_AVAILABLE,
}
# A return of what had already settled is a late return.
LATE_RETURN_SOURCES = (Status.SETTLED, Status.REVERSED)


def webhook_type(move: Move) -> str | None:
    if move.event == Event.RETURNED and move.source in LATE_RETURN_SOURCES:
        return EventType.TRANSACTION_LATE_RETURNED
    return WEBHOOKS.get(move.event)


class TransitionRefused(Conflict):
    """The table has no such move from the row's status, or the row fails the move's precondition: 409."""

    def __init__(self, txn: Transaction, event: str):
        message, code = REFUSALS.get(event, ("a {status} transaction cannot be " + event, ErrorCode.INVALID_STATUS))
        super().__init__(message.format(status=txn.status, type=txn.type), code=code)


class CallerNotAllowed(RuntimeError):
    """A programming error: this kind of caller may not cause this move."""


def _allowed(move: Move | None, txn: Transaction) -> bool:
    return move is not None and (move.precondition is None or move.precondition(txn))


def _check_caller(move: Move, actor: Actor) -> None:
    if actor.caller not in move.callers:
        raise CallerNotAllowed(f"{actor.caller} may not cause {move.event} from {move.source}")


def move_for(txn: Transaction, event: str, actor: Actor) -> Move:
    """The move `event` makes from the row's status; TransitionRefused when the table has none."""
    move = TABLE.get((txn.status, event))
    if not _allowed(move, txn):
        raise TransitionRefused(txn, event)
    _check_caller(move, actor)
    return move


# What the table and its preconditions read of a row.
CHECKED_FIELDS = ("pk", "company_id", "status", "method", "type")


def transaction_lock(rows: QuerySet[Transaction], *, skip_locked: bool = False) -> QuerySet[Transaction]:
    """The one way to lock transaction rows: FOR UPDATE of the transaction table alone (joined rows stay free).
    skip_locked for the batch commands, which leave a row another run holds to that run."""
    return rows.select_for_update(skip_locked=skip_locked, of=("self",))


def _event(txn: Transaction, move: Move, *, source: str | None, actor: Actor, at, reason: str) -> TransactionEvent:
    return TransactionEvent(
        company_id=txn.company_id,
        transaction_id=txn.pk,
        event=move.event,
        from_status=source or "",
        to_status=move.target,
        caller=actor.caller,
        actor=actor.id,
        reason=reason[:255],
        at=at,
    )


def _append(events: Sequence[TransactionEvent]) -> None:
    """Every event row goes through here."""
    TransactionEvent.objects.bulk_create(events, batch_size=1000)


_SETTLE_INTO_AVAILABLE = [code for code, kind in METHODS.items() if kind.settles_outside_file or kind.pays_by_card]
# The account HOLDER names for a settled debit: `available` once its funds are (or it settled outside a file).
_HOLDER = Case(
    When(
        Q(method__in=_SETTLE_INTO_AVAILABLE) | Q(finality__in=(Finality.AVAILABLE, Finality.FINAL)),
        then=Value(AVAILABLE),
    ),
    default=Value(PENDING_FUNDS),
)
# Account validations' micro-entries are the service's own, not the merchant's money.
_POSTED = Q(account_validation__isnull=True)


def _post(move: Move, ids: Sequence[int], *, at) -> None:
    """The move's postings for the rows `ids` it just moved, in sets, in the same database transaction: the one
    place a transaction's money is posted (tests/ledger/test_who_posts.py)."""
    for type, template in move.postings:
        rows = Transaction.objects.filter(ids_in(ids), _POSTED, type=type).annotate(holder=_HOLDER)
        template_post(template, rows.values_list("company_id", "uuid", "amount", "effective_date", "holder"), at=at)


_TRANSACTION_INSERT = RowInsert(Transaction)


def transaction_create(
    txn: Transaction, *, status: str, actor: Actor, hold: TransactionHold | None = None
) -> Transaction:
    """Insert a new transaction born in `status` (with its risk `hold` when born HELD) and announce it. Its
    `created` event (who, the status, failure_reason as the reason, created_at) is written by a trigger inside
    the INSERT itself (migration 0009): a charge costs no extra round trip for its trail."""
    move = BIRTHS.get(status)
    if move is None or not _allowed(move, txn):
        raise CallerNotAllowed(f"a {txn.method} transaction cannot be born {status}")
    _check_caller(move, actor)
    txn.status = status
    txn.created_by_caller, txn.created_by = actor.caller, actor.id
    if (
        hold is None
        and not move.template(txn.type)
        and connection.vendor == "postgresql"
        and _TRANSACTION_INSERT.prebuilt(txn)
    ):
        transaction_insert_announced(txn, _TRANSACTION_INSERT)  # the row, its trail and its events: one statement
        return txn
    with transaction.atomic(savepoint=False):  # the caller's transaction, or one of its own (a charge without one)
        _TRANSACTION_INSERT.insert(txn)
        if hold is not None:
            hold.transaction = txn
            hold.save(force_insert=True)
            txn.hold = hold
        transaction_created_event(txn)
        if move.template(txn.type):
            _post(move, [txn.pk], at=txn.created_at)
    return txn


def target_of(source: str, event: str) -> str:
    return TABLE[(source, event)].target


def transition(txn: Transaction, event: str, *, actor: Actor, at, reason: str = "", **changes) -> TransactionEvent:
    """Lock the row, check the move against the table, write the new status (and `changes`, fields that move
    with it) and append the event, all in one database transaction. `txn` is updated in memory too."""
    with transaction.atomic():
        locked = transaction_lock(Transaction.objects.filter(pk=txn.pk)).only(*CHECKED_FIELDS).get()
        move = move_for(locked, event, actor)
        Transaction.objects.filter(pk=txn.pk).update(status=move.target, **changes)
        for name, value in {"status": move.target, **changes}.items():
            setattr(txn, name, value)
        event_row = _event(locked, move, source=locked.status, actor=actor, at=at, reason=reason)
        _append([event_row])
        _post(move, [txn.pk], at=at)
        if webhook := webhook_type(move):
            transaction_event(txn, webhook)
    return event_row


class _Row:
    """What the table and its preconditions read of a row (CHECKED_FIELDS), without a model instance: the bulk
    forms check thousands of rows from tuples."""

    __slots__ = CHECKED_FIELDS

    def __init__(self, pk, company_id, status, method, type) -> None:
        self.pk, self.company_id, self.status, self.method, self.type = pk, company_id, status, method, type


# Above this many events a bulk move writes them with one INSERT ... SELECT FROM unnest (PostgreSQL).
EVENT_ARRAY_THRESHOLD = 200


def _append_moved(move: Move, rows: Sequence[tuple[int, int, str]], *, actor: Actor, at) -> None:
    """The events of many rows making one move: (transaction id, company id, reason) each. The same rows as
    `_event` makes, written server-side from three arrays on PostgreSQL (no model instance per row)."""
    if connection.vendor != "postgresql" or len(rows) < EVENT_ARRAY_THRESHOLD:
        _append(
            [
                _event(
                    _Row(pk, company_id, move.source, "", ""), move, source=move.source, actor=actor, at=at, reason=why
                )
                for pk, company_id, why in rows
            ]
        )
        return
    table = connection.ops.quote_name(TransactionEvent._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} "  # noqa: S608 - model names; values are parameters
            "(transaction_id, company_id, reason, event, from_status, to_status, caller, actor, at) "
            "SELECT u.transaction_id, u.company_id, left(u.reason, 255), %s, %s, %s, %s, %s, %s "
            "FROM unnest(%s::bigint[], %s::bigint[], %s::text[]) AS u (transaction_id, company_id, reason)",
            [
                move.event,
                move.source or "",
                move.target,
                actor.caller,
                actor.id,
                at,
                array_literal(pk for pk, _c, _r in rows),
                array_literal(company_id for _p, company_id, _r in rows),
                array_literal(why for _p, _c, why in rows),
            ],
        )


def transition_many(
    rows: QuerySet[Transaction],
    event: str,
    *,
    actor: Actor,
    at,
    changes: Mapping | None = None,
    reason: str = "",
    reasons: Mapping[int, str] | None = None,
    skip_locked: bool = False,
    read: Sequence[str] = (),
) -> list[tuple]:
    """The bulk form: lock `rows`, move those the table allows with one UPDATE per move and append their events
    in one insert. Rows the table refuses stay as they are. Each event's reason is `reasons[pk]`, else `reason`.
    Returns (pk, *read) of the moved rows. Rows are read as tuples, never as model instances."""
    locked = rows_lock_checked(rows, skip_locked=skip_locked, read=read)
    return locked_transition(locked, event, actor=actor, at=at, changes=changes, reason=reason, reasons=reasons)


def rows_lock_checked(
    rows: QuerySet[Transaction], *, skip_locked: bool = False, read: Sequence[str] = ()
) -> list[tuple]:
    """`rows` locked in id order, as (*CHECKED_FIELDS, *read) tuples: what `locked_transition` moves."""
    return list(transaction_lock(rows, skip_locked=skip_locked).order_by("pk").values_list(*CHECKED_FIELDS, *read))


def locked_transition(
    locked: Sequence[tuple],
    event: str,
    *,
    actor: Actor,
    at,
    changes: Mapping | None = None,
    reason: str = "",
    reasons: Mapping[int, str] | None = None,
) -> list[tuple]:
    """The second half of `transition_many`, for rows the caller locked with `rows_lock_checked` (a caller that
    reads the locked rows itself locks them once, not twice)."""
    moved: dict[Move, list[tuple]] = {}
    for values in locked:
        row = _Row(*values[: len(CHECKED_FIELDS)])
        move = TABLE.get((row.status, event))
        if _allowed(move, row):
            _check_caller(move, actor)
            moved.setdefault(move, []).append(values)
    for move, members in moved.items():
        ids = [values[0] for values in members]
        Transaction.objects.filter(ids_in(ids)).update(status=move.target, **(changes or {}))
        whys = reasons or {}
        _append_moved(
            move, [(values[0], values[1], whys.get(values[0], reason)) for values in members], actor=actor, at=at
        )
        _post(move, ids, at=at)
        if webhook := webhook_type(move):
            transactions_event(ids, webhook)
    return [(values[0], *values[len(CHECKED_FIELDS) :]) for members in moved.values() for values in members]


def rows_move(
    txns: list,
    event: str,
    *,
    actor: Actor,
    fields: Sequence[str],
    progress: Progress = no_progress,
    desc: str = "",
) -> dict[Move, list]:
    """The UPDATE half of `transition_rows`: each row's status and its own values of `fields`, written; the moves
    are returned for `moves_announce`. A caller that writes rows the events read (a return's entry) writes them
    in between."""
    moved: dict[Move, list] = {}
    for txn in txns:
        move = move_for(txn, event, actor)
        moved.setdefault(move, []).append(txn)
        txn.status = move.target
    chunks = functools.partial(progress, desc=desc or event, unit="chunk")
    rows_update(Transaction, txns, ("status", *fields), chunks=chunks)
    return moved


def moves_announce(moved: Mapping[Move, list], *, actor: Actor, at, reasons: Mapping[int, str] | None = None) -> None:
    """The events half of `transition_rows`: the trail rows (reason `reasons[pk]`, else none) and the webhooks."""
    whys = reasons or {}
    for move, members in moved.items():
        _append_moved(move, [(txn.pk, txn.company_id, whys.get(txn.pk, "")) for txn in members], actor=actor, at=at)
        _post(move, [txn.pk for txn in members], at=at)
        if webhook := webhook_type(move):
            transactions_event([txn.pk for txn in members], webhook)


def transition_rows(
    txns: list,
    event: str,
    *,
    actor: Actor,
    at,
    fields: Sequence[str],
    progress: Progress = no_progress,
    desc: str = "",
) -> None:
    """The bulk form for rows the caller has locked (transaction_lock) and given each its own values of
    `fields` (model instances, or any objects with the attributes of CHECKED_FIELDS and `fields`). PostgreSQL:
    one UPDATE ... FROM unnest per chunk of rows; elsewhere one parameterised UPDATE per row through executemany
    (Django's bulk_update builds a CASE per row and field, which costs seconds per thousand rows); then their
    events. The whole list is refused when one row may not move: a caller's query selects only movable rows."""
    moved = rows_move(txns, event, actor=actor, fields=fields, progress=progress, desc=desc)
    moves_announce(moved, actor=actor, at=at)
