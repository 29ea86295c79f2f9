"""Re-initiation and blocked accounts, keyed on the account (the ACH rules, Nacha 2.12.4): the check a new debit
passes, the block a return places, and the operator's lift. The account is routing + account number, so a saved
method and a one-off charge of the same account are one account."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

from django.db import connection, transaction
from django.db.models import QuerySet

from accounts.models import MerchantSettings
from events.outbox import EventDraft, events_record_many
from events.types import EventType
from payments.models import PaymentMethod
from payments.services import payment_methods_unblock
from transactions import calendar
from transactions.models import AccountBlock, RiskAction, Transaction, TransactionType
from transactions.return_codes import ACCOUNT_BLOCK_CODES, REINITIATION_CODES
from transactions.risk.policies import risk_action
from vault import crypto
from vault.db import RowColumn, ids_in, prepared_cursor, rows_insert
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
    def account_hash(self) -> str:
        return crypto.account_pair_hash(self.routing_number, self.account_number)


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
# (not for the retry itself) the debits of the same amount to it returned R01/R09 within 180 days. The account is
# {pair_hash}, {number_hash} and {routing}: parameters, or a saved method's columns (`saved_account_rows`).
_BLOCKS_SQL = (
    "SELECT 'blocked', b.transaction_id, t.uuid, b.return_code FROM {block} b "
    "JOIN {txn} t ON t.id = b.transaction_id "
    "WHERE b.company_id = %s AND b.account_hash = {pair_hash} AND b.lifted_at IS NULL"
)
_RETURNED_SQL = (
    " UNION ALL SELECT 'returned', t.id, t.uuid, t.return_code FROM {txn} t "
    "WHERE t.company_id = %s AND t.account_number_hash = {number_hash} AND t.routing_number = {routing} "
    "AND t.type = %s AND t.amount = %s AND t.return_code IN ({codes}) AND t.effective_date >= %s "
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
_PARAMETERS = {"pair_hash": "%s", "number_hash": "%s", "routing": "%s"}

AccountRow = tuple[str, int, str | None, str | None]


def _rows_sql(account: dict[str, str], *, retry: bool) -> str:
    quote = connection.ops.quote_name
    tables = {
        "block": quote(AccountBlock._meta.db_table),
        "txn": quote(Transaction._meta.db_table),
        "settings": quote(MerchantSettings._meta.db_table),
        "codes": ", ".join(["%s"] * len(_REINITIATION_CODES)),
    }
    sql = _BLOCKS_SQL if retry else _BLOCKS_SQL + _RETURNED_SQL
    return (sql + _HOLDS_SQL).format(**tables, **account)


def _returned_params(*, company_id: int, amount: int, now: datetime, account: Sequence[str] = ()) -> list[Any]:
    """_RETURNED_SQL's parameters; `account` (number hash, routing number) when the SQL names it by parameters."""
    earliest = calendar.eastern_now(now).date() - REINITIATION_WINDOW
    return [
        company_id,
        *account,
        TransactionType.DEBIT.value,
        amount,
        *_REINITIATION_CODES,
        Transaction._meta.get_field("effective_date").get_db_prep_value(earliest, connection),
    ]


def _account_rows(
    *, company_id: int, account: DebitedAccount, amount: int, now: datetime, retry: bool
) -> list[AccountRow]:
    """(kind, transaction id, transaction uuid, return code) of every block and (unless `retry`) returned debit,
    and ("holds", company id, None, None) when the company has debit holds."""
    params: list[Any] = [company_id, account.account_hash]
    if not retry:
        named = (crypto.account_number_hash(account.account_number), account.routing_number)
        params += _returned_params(company_id=company_id, amount=amount, now=now, account=named)
    params.append(company_id)
    with prepared_cursor(connection) as cursor:
        cursor.execute(_rows_sql(_PARAMETERS, retry=retry), params)
        return [
            (kind, pk, None if txn_uuid is None else str(UUID(str(txn_uuid))), code)
            for kind, pk, txn_uuid, code in cursor.fetchall()
        ]


def saved_account_rows(*, company_id: int, amount: int, now: datetime, retry: bool = False) -> RowColumn:
    """`_account_rows` of the saved method a RowLookup reads (as `m`), as one JSON column of the statement that
    reads the method (PostgreSQL): a charge of a saved method makes one round trip for both. Its stored hashes and
    routing number name the account, so nothing is decrypted first."""
    quote = connection.ops.quote_name
    method = PaymentMethod._meta
    account = {
        "pair_hash": f"m.{quote(method.get_field('account_hash').column)}",
        "number_hash": f"m.{quote(method.get_field('account_number_hash').column)}",
        "routing": f"m.{quote(method.get_field('routing_number').column)}",
    }
    params: list[Any] = [company_id]
    if not retry:
        params += _returned_params(company_id=company_id, amount=amount, now=now)
    params.append(company_id)
    rows = _rows_sql(account, retry=retry)
    sql = f"(SELECT coalesce(json_agg(json_build_array(x.kind, x.id, x.uuid, x.code)), '[]'::json) FROM ({rows}) AS x(kind, id, uuid, code))"  # noqa: E501, S608 (names and our own SQL only)
    return RowColumn(sql, params)


def debit_account_check(
    *,
    company_id: int,
    account: DebitedAccount,
    amount: int,
    now: datetime,
    retry: bool = False,
    rows: Sequence[AccountRow] | None = None,
) -> bool:
    """A debit of `account`: 409 account_blocked while a return has blocked the account, else (unless it is the
    retry itself) 409 reinitiation_requires_retry when a debit of the same amount to it came back R01/R09
    within 180 days. One statement answers both, and whether the company has debit holds now (the answer);
    `rows` are its answer when the statement that read the saved method already asked (`saved_account_rows`)."""
    if rows is None:
        rows = _account_rows(company_id=company_id, account=account, amount=amount, now=now, retry=retry)
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
    raise ReinitiationRequiresRetry(
        f"a debit of this amount to this account was returned {code} ({txn_uuid}) within 180 days: "
        f"re-present it with POST /transactions/{txn_uuid}/retry (at most twice)",
        field=account.field,
        data=data | {"retry": f"/transactions/{txn_uuid}/retry"},
    )


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


def account_blocks_place(returns: Sequence[tuple[Transaction, str]], *, at: datetime) -> list[AccountBlock]:
    """Block the account of each returned entry whose code says it cannot be debited again (inside the import's
    transaction). An account already blocked for its company keeps its first block."""
    wanted = [(txn, code) for txn, code in returns if code in ACCOUNT_BLOCK_CODES]
    if not wanted:
        return []
    numbers = dict(
        Transaction.objects.filter(ids_in([txn.pk for txn, _ in wanted])).values_list("pk", "account_number")
    )
    blocks: dict[tuple[int, str], AccountBlock] = {}
    for txn, code in wanted:
        if not numbers.get(txn.pk):
            continue
        account_hash = crypto.account_pair_hash(txn.routing_number, numbers[txn.pk])
        if (txn.company_id, account_hash) in blocks:
            continue
        blocks[txn.company_id, account_hash] = AccountBlock(
            company_id=txn.company_id,
            account_hash=account_hash,
            account_number_hash=txn.account_number_hash,
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
