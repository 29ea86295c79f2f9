"""Re-initiation and blocked accounts, keyed on the account (the ACH rules, Nacha 2.12.4): the check a new debit
passes, the block a return places, and the operator's lift. The account is routing + account number with its leading
zeros ignored (banks ignore them: 088880001 is 88880001), so a saved method and a one-off charge of the same account,
however written, are one account (CONTRACT 12)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

from django.db import connection, transaction
from django.db.models import QuerySet
from django.db.models.functions import Coalesce
from django.utils import timezone

from accounts.models import MerchantSettings
from events.outbox import EventDraft, events_record_many
from events.types import EventType
from payments.models import PaymentMethod
from payments.services import payment_methods_unblock
from transactions import calendar
from transactions.events import transactions_event
from transactions.models import (
    AccountBlock,
    RetryAttempt,
    RiskAction,
    Status,
    Transaction,
    TransactionReturn,
    TransactionType,
)
from transactions.return_codes import ACCOUNT_BLOCK_CODES, REINITIATION_CODES
from transactions.risk.policies import risk_action
from transactions.state import Actor, Event, transition_many
from vault import crypto
from vault.db import RowColumn, ids_in, prepared_cursor, rows_insert, unsaved_instance
from vault.error_codes import ErrorCode
from vault.errors import ApiError, Conflict
from vault.records import iso_utc, mask, text_or_none

REINITIATION_WINDOW = timedelta(days=180)
_BLOCKED, _RETURNED = "blocked", "returned"


@dataclass(frozen=True)
class DebitedAccount:
    """The bank account a debit would take money from, and the request field that named it."""

    routing_number: str
    account_number: str
    field: str

    @property
    def number_hash(self) -> str:
        return crypto.account_number_hash(self.account_number)

    @property
    def unpadded_key(self) -> str:
        """The key the debit rules compare: the number's hash without its leading zeros."""
        return crypto.unpadded_account_hash(self.account_number) or self.number_hash


class AccountBlocked(Conflict):
    code = ErrorCode.ACCOUNT_BLOCKED


class ReinitiationRequiresRetry(Conflict):
    code = ErrorCode.REINITIATION_REQUIRES_RETRY


def block_reason(code: str, transaction_uuid) -> str:
    """How a block reads wherever it shows: a refused charge, a declined entry's failureReason."""
    return f"account blocked after return {code} on {transaction_uuid}"


def debited_account(*, saved: PaymentMethod | None, details: dict[str, Any] | None) -> DebitedAccount | None:
    """The account a bank charge names: its saved method's, else its paymentDetails'."""
    if saved is not None:
        return DebitedAccount(saved.routing_number, saved.account_number, "paymentMethodUuid")
    if details and details.get("account_number"):
        return DebitedAccount(details["routing_number"], details["account_number"], "paymentDetails.accountNumber")
    return None


# Both questions of `debit_account_check` as one statement written once (the queryset union it replaces cost
# about a fifth of a charge's Python time to build and compile on every charge): the account's live blocks, and
# (not for the retry itself) the debits to it, of any amount, returned R01/R09 within 180 days. The account is
# {routing}, {number_hash} and {key} (the unpadded key): parameters, or a saved method's columns
# (`saved_account_rows`). A row matches on its unpadded key, or on its exact hash: a row without an unpadded hash
# has no leading zeros (its hash is its key), or was written before the column and is matched as it was written.
_BLOCKS_SQL = (
    "SELECT 'blocked', b.transaction_id, t.uuid, b.return_code FROM {block} b "
    "JOIN {txn} t ON t.id = b.transaction_id "
    "WHERE b.company_id = %s AND b.lifted_at IS NULL AND b.routing_number = {routing} "
    "AND (b.account_number_hash IN ({key}, {number_hash}) OR b.unpadded_account_hash = {key})"
)
# The codes are written in (our own constants): the partial index of returned unpadded accounts is then usable.
_RETURNED_SQL = (
    " UNION ALL SELECT 'returned', t.id, t.uuid, t.return_code FROM {txn} t "
    "WHERE t.company_id = %s AND t.routing_number = {routing} "
    "AND (t.account_number_hash IN ({key}, {number_hash}) OR t.unpadded_account_hash = {key}) "
    "AND t.type = %s AND t.return_code IN ({codes}) AND t.effective_date >= %s "
    "AND t.account_validation_id IS NULL"
)
# The company's debit holds flag, read fresh: authentication's copy of the company may be seconds old, and a hold
# placed by import_returns applies to the next debit.
_HOLDS_SQL = (
    " UNION ALL SELECT 'holds', s.company_id, NULL, NULL FROM {settings} s "
    "WHERE s.company_id = %s AND s.has_debit_holds"
)
_REINITIATION_CODES = sorted(REINITIATION_CODES)
_HOLDS = "holds"
_PARAMETERS = {"routing": "%s", "key": "%s", "number_hash": "%s"}

AccountRow = tuple[str, int, str | None, str | None]


def _rows_sql(account: dict[str, str], *, retry: bool) -> str:
    quote = connection.ops.quote_name
    tables = {
        "block": quote(AccountBlock._meta.db_table),
        "txn": quote(Transaction._meta.db_table),
        "settings": quote(MerchantSettings._meta.db_table),
        "codes": ", ".join(f"'{code}'" for code in _REINITIATION_CODES),
    }
    sql = _BLOCKS_SQL if retry else _BLOCKS_SQL + _RETURNED_SQL
    return (sql + _HOLDS_SQL).format(**tables, **account)


def _returned_params(*, company_id: int, now: datetime, account: Sequence[str] = ()) -> list[Any]:
    """_RETURNED_SQL's parameters; `account` (its placeholders') when the SQL names it by parameters."""
    earliest = calendar.eastern_now(now).date() - REINITIATION_WINDOW
    return [
        company_id,
        *account,
        TransactionType.DEBIT.value,
        Transaction._meta.get_field("effective_date").get_db_prep_value(earliest, connection),
    ]


def _account_rows(*, company_id: int, account: DebitedAccount, now: datetime, retry: bool) -> list[AccountRow]:
    """(kind, transaction id, transaction uuid, return code) of every block and (unless `retry`) returned debit,
    and ("holds", company id, None, None) when the company has debit holds."""
    # The account's placeholders in the order they appear: routing, key, number hash, key.
    named = (account.routing_number, account.unpadded_key, account.number_hash, account.unpadded_key)
    params: list[Any] = [company_id, *named]
    if not retry:
        params += _returned_params(company_id=company_id, now=now, account=named)
    params.append(company_id)
    with prepared_cursor(connection) as cursor:
        cursor.execute(_rows_sql(_PARAMETERS, retry=retry), params)
        return [
            (kind, pk, None if txn_uuid is None else str(UUID(str(txn_uuid))), code)
            for kind, pk, txn_uuid, code in cursor.fetchall()
        ]


def saved_account_rows(*, company_id: int, now: datetime, retry: bool = False) -> RowColumn:
    """`_account_rows` of the saved method a RowLookup reads (as `m`), as one JSON column of the statement that
    reads the method (PostgreSQL): a charge of a saved method makes one round trip for both. Its stored hashes and
    routing number name the account, so nothing is decrypted first."""
    quote = connection.ops.quote_name
    method = PaymentMethod._meta
    number_hash = f"m.{quote(method.get_field('account_number_hash').column)}"
    unpadded = f"m.{quote(method.get_field('unpadded_account_hash').column)}"
    account = {
        "routing": f"m.{quote(method.get_field('routing_number').column)}",
        "key": f"coalesce({unpadded}, {number_hash})",
        "number_hash": number_hash,
    }
    params: list[Any] = [company_id]
    if not retry:
        params += _returned_params(company_id=company_id, now=now)
    params.append(company_id)
    rows = _rows_sql(account, retry=retry)
    sql = f"(SELECT coalesce(json_agg(json_build_array(x.kind, x.id, x.uuid, x.code)), '[]'::json) FROM ({rows}) AS x(kind, id, uuid, code))"  # noqa: E501, S608 (names and our own SQL only)
    return RowColumn(sql, params)


@dataclass(frozen=True)
class Reauthorization:
    """The mandate a debit names, as the re-initiation rule reads it (CONTRACT 14, 2026-12-07): accepted after an
    R01/R09 return, with its evidence (a file for `paper` and `phone`; an online one has its IP address and user
    agent), it lets debits past that return, and it alone (the return records it: once per return)."""

    mandate_id: int
    mandate_uuid: str
    accepted_at: datetime
    evidenced: bool
    actor: Actor  # who makes the debit: the re-presentments it replaces are voided in its name


def debit_account_check(
    *,
    company_id: int,
    account: DebitedAccount,
    now: datetime,
    retry: bool = False,
    rows: Sequence[AccountRow] | None = None,
    reauthorization: Reauthorization | None = None,
) -> bool:
    """A debit of `account`: 409 account_blocked while a return has blocked the account, else (unless it is the
    retry itself, or it names a mandate that re-authorized debits after the return: `reauthorization`) 409
    reinitiation_requires_retry when a debit to it, of any amount, came back R01/R09 within 180 days
    (`reinitiation_refusal`). One statement answers both, and whether the company has debit holds now (the
    answer); `rows` are its answer when the statement that read the saved method already asked
    (`saved_account_rows`)."""
    if rows is None:
        rows = _account_rows(company_id=company_id, account=account, now=now, retry=retry)
    found = sorted((row for row in rows if row[0] != _HOLDS), key=lambda row: (row[0] == _BLOCKED, row[1]))
    if not found:
        return any(row[0] == _HOLDS for row in rows)
    kind, _pk, txn_uuid, code = found[-1]
    data = {"transactionUuid": str(txn_uuid), "returnCode": code}
    if kind == _BLOCKED:
        raise AccountBlocked(
            f"{block_reason(code, txn_uuid)}: it cannot be debited until an operator lifts the block",
            field=account.field,
            data=data,
        )
    refusal = reinitiation_refusal(
        [ReturnedDebit(pk, str(txn_uuid), code) for _kind, pk, txn_uuid, code in found],
        company_id=company_id,
        reauthorization=reauthorization,
        at=now,
    )
    if refusal is None:
        return any(row[0] == _HOLDS for row in rows)
    raise ReinitiationRequiresRetry(
        f"a debit to this account (of any amount) was returned {refusal.return_code} ({refusal.uuid}) within 180 "
        f"days: re-present it with POST /transactions/{refusal.uuid}/retry (at most twice)",
        field=account.field,
        data={
            "transactionUuid": refusal.uuid,
            "returnCode": refusal.return_code,
            "retry": f"/transactions/{refusal.uuid}/retry",
        },
    )


@dataclass(frozen=True)
class ReturnedDebit:
    """A debit of the company to the account that came back R01/R09 within 180 days."""

    pk: int
    uuid: str
    return_code: str


def reinitiation_refusal(
    returned: Sequence[ReturnedDebit],
    *,
    company_id: int,
    reauthorization: Reauthorization | None = None,
    at: datetime | None = None,
) -> ReturnedDebit | None:
    """CONTRACT 12 "Re-initiation covers the account, not the amount": which of the account's R01/R09 returns of the
    last 180 days refuses a new debit (the newest; None: the debit may go). The retry route never asks. A debit that
    names a mandate (CONTRACT 14) is not refused by a return the mandate re-authorized debits after
    (`_reauthorized`); the debit that lets it past records the mandate on the return (the first one only) and
    cancels that return's pending re-presentments, so the payer is not debited twice for one obligation."""
    if reauthorization is not None and returned:
        lifted = _reauthorized(returned, company_id=company_id, reauthorization=reauthorization)
        if lifted and all(debit.pk in lifted for debit in returned):  # the debit goes: its mandate claims them
            lifted = _reauthorization_claim(lifted, reauthorization=reauthorization, at=at)
        returned = [debit for debit in returned if debit.pk not in lifted]
    return max(returned, key=lambda debit: debit.pk, default=None)


def _reauthorized(returned: Sequence[ReturnedDebit], *, company_id: int, reauthorization: Reauthorization) -> set[int]:
    """The returned debits the mandate lets a debit past: received before it was accepted, the mandate with its
    evidence, and no other mandate re-authorized after the return first (one query)."""
    if not reauthorization.evidenced:
        return set()
    return {
        transaction_id
        for transaction_id, received, by in TransactionReturn.objects.filter(
            company_id=company_id, transaction_id__in=[debit.pk for debit in returned]
        ).values_list("transaction_id", "returned_at", "reauthorized_by_id")
        if received <= reauthorization.accepted_at and by in (None, reauthorization.mandate_id)
    }


REAUTHORIZED = "reauthorized"  # a scheduled re-presentment's reason: a new authorization replaced it


def _reauthorization_claim(lifted: set[int], *, reauthorization: Reauthorization, at: datetime | None) -> set[int]:
    """The returns `lifted` take the mandate (compare-and-set: of two mandates at once one wins, and the returns the
    other lost stay in its way), and their re-presentments not yet sent are voided or cancelled."""
    TransactionReturn.objects.filter(ids_in(lifted, field="transaction_id"), reauthorized_by__isnull=True).update(
        reauthorized_by_id=reauthorization.mandate_id
    )
    claimed = set(
        TransactionReturn.objects.filter(
            ids_in(lifted, field="transaction_id"), reauthorized_by_id=reauthorization.mandate_id
        ).values_list("transaction_id", flat=True)
    )
    originals = set(Transaction.objects.filter(ids_in(claimed)).values_list(Coalesce("retry_of_id", "id"), flat=True))
    why = f"re-authorized by mandate {reauthorization.mandate_uuid}: a debit under it replaces this re-presentment"
    at = at or timezone.now()
    transition_many(
        Transaction.objects.filter(retry_of_id__in=originals, status=Status.PENDING),
        Event.VOIDED,
        actor=reauthorization.actor,
        at=at,
        changes={"voided_at": at, "failure_reason": why},
        reason=why,
    )
    scheduled = RetryAttempt.objects.filter(original_id__in=originals, state=RetryAttempt.State.SCHEDULED)
    returned_ids = list(scheduled.values_list("returned_id", flat=True))
    if scheduled.update(state=RetryAttempt.State.CANCELLED, reason=REAUTHORIZED, updated_at=at):
        transactions_event(returned_ids, EventType.TRANSACTION_RETRY_CANCELLED)
    return claimed


def account_block_record(block: AccountBlock) -> dict[str, Any]:
    return {
        "uuid": str(block.uuid),
        "routingNumber": block.routing_number,
        "accountNumber": mask(block.account_last_four),
        "returnCode": block.return_code,
        "transactionUuid": str(block.transaction.uuid),
        "blockedAt": iso_utc(block.blocked_at),
        "liftedAt": iso_utc(block.lifted_at),
        "liftReason": text_or_none(block.lift_reason),
    }


def _announce(blocks: Sequence[tuple[AccountBlock, str]], type: str, *, action: str, at: datetime) -> None:
    """The merchant's events and the return program's evidence log of blocks placed or lifted, (block, detail)
    each: one insert of the events (a COPY when there are many) and one of the risk actions, however many blocks."""
    events_record_many(
        [
            EventDraft(company_id=block.company_id, type=type, object_uuid=block.uuid, data=account_block_record(block))
            for block, _detail in blocks
        ]
    )
    rows_insert(
        RiskAction,
        [
            risk_action(
                company_id=block.company_id,
                action=action,
                at=at,
                txn=block.transaction,
                code=block.return_code,
                detail=detail,
            )
            for block, detail in blocks
        ],
    )


BLOCK_FIELDS = tuple(field.name for field in AccountBlock._meta.concrete_fields)


def account_blocks_place(
    returns: Sequence[tuple[Transaction, str]], *, at: datetime, methods: Mapping[int, PaymentMethod] | None = None
) -> list[AccountBlock]:
    """Block the account of each returned entry whose code says it cannot be debited again (inside the import's
    transaction). An account already blocked for its company keeps its first block. `methods`: the entries' saved
    methods by id, when the caller has them: an entry sent to its method's account takes the method's keys of it
    instead of its own account number decrypted (a Fernet decryption an entry was most of a block's Python)."""
    wanted = [(txn, code) for txn, code in returns if code in ACCOUNT_BLOCK_CODES]
    if not wanted:
        return []
    keys = _account_keys([txn for txn, _ in wanted], methods or {})
    blocks: dict[tuple[int, str], AccountBlock] = {}
    for txn, code in wanted:
        if txn.pk not in keys:
            continue
        account_hash, unpadded_hash = keys[txn.pk]
        if (txn.company_id, account_hash) in blocks:
            continue
        blocks[txn.company_id, account_hash] = unsaved_instance(
            AccountBlock,
            company_id=txn.company_id,
            account_hash=account_hash,
            account_number_hash=txn.account_number_hash,
            unpadded_account_hash=unpadded_hash,
            routing_number=txn.routing_number,
            account_last_four=txn.account_last_four,
            return_code=code,
            transaction_id=txn.pk,
            blocked_at=at,
        )
    live = set(
        AccountBlock.objects.filter(
            company_id__in={company_id for company_id, _ in blocks},
            account_hash__in={account_hash for _, account_hash in blocks},
            lifted_at__isnull=True,
        ).values_list("company_id", "account_hash")
    )
    new = [block for key, block in blocks.items() if key not in live]
    # A block placed by a concurrent import of another file stays; the unique index keeps it one.
    AccountBlock.objects.bulk_create(new, ignore_conflicts=True)
    # Of the returned entry only its uuid is read (the whole wide row would decrypt its account number again).
    placed = list(
        AccountBlock.objects.filter(
            ids_in([block.transaction_id for block in new], field="transaction_id"),
            blocked_at=at,
            lifted_at__isnull=True,
        )
        .select_related("transaction")
        .only(*BLOCK_FIELDS, "transaction__uuid", "transaction__company_id")
    )
    details = [
        (block, f"{block_reason(block.return_code, block.transaction.uuid)} ({mask(block.account_last_four)})")
        for block in placed
    ]
    _announce(details, EventType.ACCOUNT_BLOCKED, action=RiskAction.Kind.BLOCK_ACCOUNT, at=at)
    return placed


def _account_keys(entries: Sequence[Transaction], methods: Mapping[int, PaymentMethod]) -> dict:
    """Each entry's account keys (pair hash, unpadded hash) by its id: from its saved method where it went to the
    method's account, else from its own account number, decrypted only for those entries."""
    keys = {txn.pk: key for txn in entries if (key := _method_keys(txn, methods)) is not None}
    unkeyed = {txn.pk: txn.routing_number for txn in entries if txn.pk not in keys}
    if unkeyed:
        numbers = Transaction.objects.filter(ids_in(list(unkeyed))).values_list("pk", "account_number")
        for pk, number in numbers:
            if number:
                keys[pk] = (crypto.account_pair_hash(unkeyed[pk], number), crypto.unpadded_account_hash(number))
    return keys


def _method_keys(txn: Transaction, methods: Mapping[int, PaymentMethod]) -> tuple[str, str | None] | None:
    """The entry's account keys (pair hash, unpadded hash) from its saved method, when the entry went to the
    account the method holds (same routing number, same account number by its hash); None otherwise."""
    method = methods.get(txn.payment_method_id) if txn.payment_method_id is not None else None
    if (
        method is None
        or method.routing_number != txn.routing_number
        or method.account_number_hash != txn.account_number_hash
    ):
        return None
    return method.account_hash, method.unpadded_account_hash


class LiftReasonRequired(ApiError):
    def __init__(self) -> None:
        super().__init__("a reason is required to lift an account block", field="reason", code=ErrorCode.REQUIRED)


def account_blocks_lift(*, blocks: QuerySet[AccountBlock], reason: str, user, at: datetime) -> int:
    """An operator lifts live blocks, with a reason: the account may be debited again, and the company's saved
    methods of that account that the same return blocked are unblocked with it. Each lift is announced
    (account.block_lifted) and logged as a risk action."""
    reason = reason.strip()
    if not reason:
        raise LiftReasonRequired
    lifted = 0
    with transaction.atomic():
        for block in (
            blocks.select_for_update(of=("self",)).filter(lifted_at__isnull=True).select_related("transaction")
        ):
            block.lifted_at, block.lifted_by, block.lift_reason = at, user, reason[:255]
            block.save(update_fields=["lifted_at", "lifted_by", "lift_reason"])
            # The saved-method block a return's policy placed goes with the account block of the same return.
            payment_methods_unblock(
                company_id=block.company_id, account_hash=block.account_hash, return_code=block.return_code
            )
            _announce(
                [(block, f"lifted by user {user.pk}: {reason}")],
                EventType.ACCOUNT_BLOCK_LIFTED,
                action=RiskAction.Kind.LIFT_ACCOUNT_BLOCK,
                at=at,
            )
            lifted += 1
    return lifted
