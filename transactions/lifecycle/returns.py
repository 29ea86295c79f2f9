"""`import_returns`: apply an RDFI's return / notice-of-change file (NACHA or CSV) to the transactions it
names by original entry trace number.

The file is parsed before any row is locked; then one database transaction records the IngestionFile
(unique by SHA-256, so a re-import answers the first summary) and applies every entry. A crash midway
rolls the whole file back and a rerun applies it afresh."""

from __future__ import annotations

import csv
import hashlib
import io
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, transaction

from events.types import EventType
from payments import numbers
from payments.models import PaymentMethod
from payments.services import VALIDATION_FIELDS, payment_method_event, payment_method_validation_reset
from transactions import calendar
from transactions.lifecycle import nacha
from transactions.lifecycle.origination import sec_code_for
from transactions.lifecycle.return_codes import CHANGE_CODES, RETURN_CODES, Corrected, PolicyAction
from transactions.models import ChangeNotice, IngestionFile, Status, Transaction, TransactionReturn, TransactionType
from transactions.returnrisk.policy import (
    PolicyBook,
    ReturnFollowUp,
    return_followups_apply,
    return_rate_alerts_evaluate,
    risk_action_record,
)
from transactions.state import Actor, Event, transaction_lock, transition_many
from transactions.validation import validations_noticed, validations_returned
from vault import crypto
from vault.commands import Progress, no_progress

logger = logging.getLogger("transactions.lifecycle")

IMPORT_RETURNS = Actor.command("import_returns")
# A Reversed debit was Settled first: its return is a late return like any other (its reversal credit is
# voided when it has not gone out yet, so the payer is not refunded twice).
RETURNABLE = (Status.PROCESSING, Status.SETTLED, Status.REVERSED)
LATE = (Status.SETTLED, Status.REVERSED)
REVERSAL_VOIDED = "voided: the reversed debit was returned before this credit was sent"

# The CSV equivalent of a NACHA return file (README: "Return and NOC CSV format").
CSV_COLUMNS = (
    "record_type",
    "original_trace_number",
    "code",
    "corrected_routing_number",
    "corrected_account_number",
    "corrected_account_type",
)
CSV_REQUIRED = CSV_COLUMNS[:3]
CSV_CORRECTED = {
    "corrected_routing_number": "routingNumber",
    "corrected_account_number": "accountNumber",
    "corrected_account_type": "accountType",
}


class ReturnFileError(ValueError):
    """The file cannot be imported as a whole (bad format, unknown code); nothing was applied."""


def _read_csv(text: str) -> list[nacha.ReturnedItem]:
    reader = csv.DictReader(io.StringIO(text), strict=True)
    try:
        return _csv_items(reader)
    except csv.Error as exc:
        raise ReturnFileError(f"line {reader.line_num}: malformed CSV ({exc})") from None


def _csv_items(reader: csv.DictReader) -> list[nacha.ReturnedItem]:
    columns = [name.strip() for name in (reader.fieldnames or [])]
    missing = [name for name in CSV_REQUIRED if name not in columns]
    unknown = [name for name in columns if name not in CSV_COLUMNS]
    if missing or unknown:
        raise ReturnFileError(f"CSV columns: missing {missing or 'none'}, unknown {unknown or 'none'}")
    items = []
    for number, row in enumerate(reader, start=2):
        row = {key.strip(): (value or "").strip() for key, value in row.items() if key}
        kind = row["record_type"].lower()
        if kind not in ("return", "noc"):
            raise ReturnFileError(f"line {number}: record_type must be return or noc")
        corrected = {CSV_CORRECTED[column]: row[column] for column in CSV_CORRECTED if row.get(column)}
        if kind == "noc" and "accountType" in corrected:
            corrected["accountType"] = corrected["accountType"].capitalize()
        items.append(nacha.ReturnedItem(kind, row["original_trace_number"], row["code"].upper(), corrected))
    return items


def _check_routing(return_file: nacha.ReturnFile) -> None:
    """Returns come back the way our files went, reversed: from the bank we send to (our immediate
    destination), addressed to us (our immediate origin). Any other file is not ours to apply."""
    expected = {
        "immediate destination": (return_file.immediate_destination, settings.ACH_IMMEDIATE_ORIGIN),
        "immediate origin": (return_file.immediate_origin, settings.ACH_IMMEDIATE_DESTINATION),
    }
    for name, (found, ours) in expected.items():
        if found != ours:
            raise ReturnFileError(f"file header {name} is {found!r}, expected {ours!r}: not a file for us")


def read_items(text: str) -> tuple[str, list[nacha.ReturnedItem]]:
    """(format, items): NACHA when the first record is a 94-character file header, else CSV."""
    first = text.split("\n", 1)[0].rstrip("\r")
    if first.startswith("1") and len(first) == nacha.RECORD_LENGTH:
        try:
            return_file = nacha.read_returns(text)
        except nacha.NachaFormatError as exc:
            raise ReturnFileError(str(exc)) from None
        _check_routing(return_file)
        items, file_format = return_file.items, "nacha"
    else:
        items, file_format = _read_csv(text), "csv"
    for item in items:
        table = RETURN_CODES if item.kind == "return" else CHANGE_CODES
        if item.code not in table:
            raise ReturnFileError(f"unknown {'return' if item.kind == 'return' else 'change'} code {item.code!r}")
        if "transactionCode" in item.corrected:
            account_type = nacha.account_type_for_code(item.corrected.pop("transactionCode"))
            if account_type:
                item.corrected["accountType"] = account_type
    return file_format, items


LOCK_CHUNK = 500
# Trace numbers repeat from one processing day to the next, so a return is matched to the most recent entry
# with its trace number whose day lies inside the return window: Nacha's longest is 60 calendar days after
# settlement (unauthorized consumer debits), plus a few days for the return file to reach us.
RETURN_WINDOW = timedelta(days=60 + 5)


def _matches(items: Sequence[nacha.ReturnedItem], at: datetime) -> list[int | None]:
    """For each item, the id of the most recent entry with its trace number inside the return window that also
    agrees with what the return carries (a NACHA return names the original amount and whether it was a debit),
    or None."""
    floor = calendar.eastern_now(at).date() - RETURN_WINDOW
    candidates: dict[str, list[tuple[int, int, bool]]] = {}
    rows = (
        Transaction.objects.filter(trace_number__in={item.original_trace for item in items}, trace_date__gte=floor)
        .order_by("trace_number", "-trace_date")
        .values_list("trace_number", "pk", "amount", "type")
    )
    for trace, pk, amount, txn_type in rows:
        candidates.setdefault(trace, []).append((pk, amount, txn_type == TransactionType.DEBIT))

    def match(item: nacha.ReturnedItem) -> int | None:
        for pk, amount, is_debit in candidates.get(item.original_trace, ()):
            if item.is_debit is not None and item.is_debit != is_debit:
                continue
            if item.amount and item.amount != amount:  # a NOC carries no amount
                continue
            return pk
        return None

    return [match(item) for item in items]


@dataclass
class _Applied:
    returns: int = 0
    notices: int = 0


@dataclass
class _Chunk:
    """The rows one chunk of the file touches, locked together (methods, then transactions, by id), and
    the writes it gathers so they go out as a few statements instead of several per entry."""

    ingestion: IngestionFile
    at: datetime
    actor: Actor
    transactions: dict[int, Transaction]
    matched: list[int | None]
    methods: dict[int, PaymentMethod]
    returned: set[int]
    noticed: set[int]
    policies: PolicyBook
    new_returns: list[TransactionReturn] = field(default_factory=list)
    new_notices: list[ChangeNotice] = field(default_factory=list)
    late_ids: list[int] = field(default_factory=list)
    returned_reversals: list = field(default_factory=list)
    followups: list[ReturnFollowUp] = field(default_factory=list)

    @classmethod
    def lock(cls, items: Sequence[nacha.ReturnedItem], ingestion: IngestionFile, at: datetime, actor: Actor) -> _Chunk:
        matched = _matches(items, at)
        matching = Transaction.objects.filter(pk__in={pk for pk in matched if pk is not None})
        method_ids = set(matching.exclude(payment_method=None).values_list("payment_method_id", flat=True))
        methods = PaymentMethod.objects.select_for_update().filter(pk__in=method_ids).order_by("pk")
        txns = transaction_lock(matching).defer("account_number").order_by("pk")
        chunk = cls(
            ingestion=ingestion,
            at=at,
            actor=actor,
            transactions={txn.pk: txn for txn in txns},
            matched=matched,
            methods={method.pk: method for method in methods},
            returned=set(),
            noticed=set(),
            policies=PolicyBook({txn.company_id for txn in txns}),
        )
        ids = [txn.pk for txn in chunk.transactions.values()]
        chunk.returned = set(
            TransactionReturn.objects.filter(transaction_id__in=ids).values_list("transaction_id", flat=True)
        )
        chunk.noticed = set(
            ChangeNotice.objects.filter(transaction_id__in=ids).values_list("transaction_id", flat=True)
        )
        return chunk

    def flush(self) -> None:
        TransactionReturn.objects.bulk_create(self.new_returns)
        ChangeNotice.objects.bulk_create(self.new_notices)
        transition_many(
            Transaction.objects.filter(pk__in=[entry.transaction_id for entry in self.new_returns]),
            Event.RETURNED,
            actor=self.actor,
            at=self.at,
            changes={"ingestion_file": self.ingestion},
            reasons={entry.transaction_id: f"{entry.return_code} {entry.return_reason}" for entry in self.new_returns},
        )
        Transaction.objects.filter(pk__in=self.late_ids).update(late_returned_at=self.at)
        transition_many(
            Transaction.objects.filter(uuid__in=self.returned_reversals, status=Status.PENDING),
            Event.VOIDED,
            actor=self.actor,
            at=self.at,
            changes={"voided_at": self.at, "failure_reason": REVERSAL_VOIDED},
            reason=REVERSAL_VOIDED,
        )
        Transaction.objects.filter(pk__in=[notice.transaction_id for notice in self.new_notices]).update(
            ingestion_file=self.ingestion
        )
        return_followups_apply(self.followups, at=self.at)
        # Validation entries (prenotes, micro-entries): a return fails the validation, a NOC on a prenote passes it.
        validations_returned(
            transaction_ids=[entry.transaction_id for entry in self.new_returns], actor=self.actor, at=self.at
        )
        validations_noticed(
            transaction_ids=[notice.transaction_id for notice in self.new_notices], actor=self.actor, at=self.at
        )


def _apply_return(item: nacha.ReturnedItem, txn: Transaction, chunk: _Chunk) -> bool:
    if txn.status not in RETURNABLE or txn.pk in chunk.returned:
        return False
    code = RETURN_CODES[item.code]
    chunk.returned.add(txn.pk)
    chunk.new_returns.append(
        TransactionReturn(
            company_id=txn.company_id,
            transaction=txn,
            return_code=item.code,
            return_reason=code.reason,
            returned_at=chunk.at,
            ingestion_file=chunk.ingestion,
        )
    )
    if txn.status in LATE:
        chunk.late_ids.append(txn.pk)
    if txn.status == Status.REVERSED:
        chunk.returned_reversals.append(txn.reversal_uuid)
    actions = chunk.policies.actions(txn.company_id, item.code)
    method = chunk.methods.get(txn.payment_method_id)
    if PolicyAction.BLOCK_METHOD in actions and method is not None and method.blocked_at is None:
        method.blocked_at = chunk.at
        method.blocked_reason = f"{item.code} {code.reason}"
        method.save(update_fields=["blocked_at", "blocked_reason"])
        payment_method_event(method, EventType.PAYMENT_METHOD_BLOCKED)
        risk_action_record(
            company_id=txn.company_id, action=PolicyAction.BLOCK_METHOD, at=chunk.at, txn=txn, code=item.code
        )
    if actions - {PolicyAction.BLOCK_METHOD}:
        chunk.followups.append(ReturnFollowUp(txn=txn, code=item.code, actions=actions))
    return True


def _valid_correction(corrected: dict[str, str]) -> bool:
    routing = corrected.get(Corrected.ROUTING.value)
    account = corrected.get(Corrected.ACCOUNT.value)
    account_type = corrected.get(Corrected.ACCOUNT_TYPE.value)
    return (
        (routing is None or numbers.is_routing_number(routing))
        and (account is None or numbers.is_account_number(account))
        and (account_type is None or account_type in PaymentMethod.AccountType.values)
    )


def _method_values(method: PaymentMethod | None, txn: Transaction, fields: Sequence[str]) -> dict[str, str]:
    """The values a NOC corrects, as the ChangeNotice keeps them: account numbers masked, never in full."""
    source = {
        Corrected.ROUTING.value: method.routing_number if method else txn.routing_number,
        Corrected.ACCOUNT.value: crypto.mask(method.last_four if method else txn.account_last_four),
        Corrected.ACCOUNT_TYPE.value: method.account_type if method else txn.account_type,
        Corrected.NAME.value: txn.name,
    }
    return {name: source[name] for name in fields}


def _apply_notice(item: nacha.ReturnedItem, txn: Transaction, chunk: _Chunk) -> bool:
    if txn.pk in chunk.noticed or not _valid_correction(item.corrected):
        return False
    chunk.noticed.add(txn.pk)
    code = CHANGE_CODES[item.code]
    corrected = {name.value: item.corrected[name.value] for name in code.corrects if name.value in item.corrected}
    method = chunk.methods.get(txn.payment_method_id)
    old_value = _method_values(method, txn, list(corrected))
    new_value = {
        name: crypto.mask(value[-4:]) if name == Corrected.ACCOUNT.value else value for name, value in corrected.items()
    }
    chunk.new_notices.append(
        ChangeNotice(
            company_id=txn.company_id,
            transaction=txn,
            change_code=item.code,
            change_reason=code.reason,
            changed_at=chunk.at,
            noc_received_at=chunk.at,
            old_value=old_value,
            new_value=new_value,
            corrected_account_number=corrected.get(Corrected.ACCOUNT.value),
            ingestion_file=chunk.ingestion,
        )
    )
    if method is not None:
        _correct_method(method, corrected)
    return True


def _correct_method(method: PaymentMethod, corrected: dict[str, str]) -> None:
    routing = corrected.get(Corrected.ROUTING.value, method.routing_number)
    account = corrected.get(Corrected.ACCOUNT.value, method.account_number)
    account_hash = crypto.account_pair_hash(routing, account)
    if (
        account_hash != method.account_hash
        and PaymentMethod.objects.filter(
            company_id=method.company_id,
            customer_id=method.customer_id,
            account_hash=account_hash,
            deleted_at__isnull=True,
        ).exists()
    ):
        # The customer already saved the corrected account: that method is the one to charge now.
        logger.warning("notice of change for method %s matches another saved method; method left as is", method.uuid)
        return
    changed_account = account_hash != method.account_hash
    method.routing_number = routing
    method.account_number = account
    method.account_hash = account_hash
    method.last_four = account[-4:]
    method.account_type = corrected.get(Corrected.ACCOUNT_TYPE.value, method.account_type)
    if changed_account:  # C01, C02, C03, C06, C07: another account number or routing number
        payment_method_validation_reset(method)
    method.save(
        update_fields=[
            "routing_number",
            "account_number",
            "account_hash",
            "last_four",
            "account_type",
            *VALIDATION_FIELDS,
        ]
    )
    payment_method_event(method, EventType.PAYMENT_METHOD_UPDATED)


def summary_of(ingestion: IngestionFile, applied: _Applied, unmatched: list[str]) -> dict:
    return {
        "ingestionFileUuid": str(ingestion.uuid),
        "returns": applied.returns,
        "notices": applied.notices,
        "unmatched": unmatched,
    }


def returns_import(
    *, content: bytes, filename: str, at: datetime, actor: Actor = IMPORT_RETURNS, progress: Progress = no_progress
) -> dict:
    if len(content) > settings.IMPORT_RETURNS_MAX_BYTES:
        raise ReturnFileError(f"the file is larger than {settings.IMPORT_RETURNS_MAX_BYTES} bytes")
    digest = hashlib.sha256(content).hexdigest()
    existing = IngestionFile.objects.filter(sha256=digest).first()
    if existing is not None:
        return existing.summary
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ReturnFileError("the file is not UTF-8 / ASCII text") from None
    file_format, items = read_items(text)
    try:
        with transaction.atomic():
            ingestion = IngestionFile.objects.create(
                filename=filename[-500:], sha256=digest, file_format=file_format, received_at=at
            )
            applied, unmatched, touched = _Applied(), [], set()
            chunks = [items[start : start + LOCK_CHUNK] for start in range(0, len(items), LOCK_CHUNK)]
            for part in progress(chunks, desc="import", unit="chunk"):
                chunk = _Chunk.lock(part, ingestion, at, actor)
                for item, pk in zip(part, chunk.matched, strict=True):
                    txn = chunk.transactions.get(pk)
                    if item.kind == "return":
                        done = txn is not None and _apply_return(item, txn, chunk)
                        applied.returns += done
                        if done:
                            touched.add(txn.company_id)
                    else:
                        done = txn is not None and _apply_notice(item, txn, chunk)
                        applied.notices += done
                    if not done:
                        unmatched.append(item.original_trace)
                chunk.flush()
            return_rate_alerts_evaluate(company_ids=touched, at=at)
            ingestion.summary = summary_of(ingestion, applied, unmatched)
            ingestion.save(update_fields=["summary"])
    except IntegrityError:
        # The same file imported concurrently: the run that committed first has the summary.
        existing = IngestionFile.objects.filter(sha256=digest).first()
        if existing is None:
            raise
        return existing.summary
    logger.info(
        "imported %s: %s returns, %s notices, %s unmatched",
        ingestion.uuid,
        applied.returns,
        applied.notices,
        len(unmatched),
    )
    return ingestion.summary


def return_file_for(entries: Sequence[tuple[Transaction, str, dict[str, str]]], *, at: datetime) -> str:
    """A NACHA return / NOC file for originated transactions, as their RDFI would send it back:
    (transaction, R.. or C.. code, corrected values for a NOC). For tests and sandbox runs."""

    def _wire(txn: Transaction, corrected: dict[str, str]) -> dict[str, str]:
        wire = dict(corrected)
        if "accountType" in wire:  # the file carries the corrected transaction code, not the account type
            wire["transactionCode"] = nacha.TRANSACTION_CODES[(txn.type, wire.pop("accountType"))]
        return wire

    specs = [
        nacha.ReturnSpec(
            kind="return" if code.startswith("R") else "noc",
            code=code,
            original_trace=txn.trace_number,
            original_transaction_code=nacha.TRANSACTION_CODES[(txn.type, txn.account_type)],
            routing_number=txn.routing_number,
            account_number=txn.account_number or "",
            amount=txn.amount,
            individual_name=txn.name,
            company_name=txn.company.name,
            company_identification=txn.company.ach_company_id,
            sec_code=sec_code_for(txn),
            corrected=_wire(txn, corrected),
        )
        for txn, code, corrected in entries
    ]
    # Sent back to us by the bank we send our files to.
    return nacha.return_file_text(
        items=specs,
        rdfi_routing=settings.ACH_IMMEDIATE_DESTINATION,
        odfi_routing=settings.ACH_IMMEDIATE_ORIGIN,
        created_at=at,
    )
