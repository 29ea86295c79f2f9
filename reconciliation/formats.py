"""The two statement formats the bank may send, each read with a maintained library into one shape (CONTRACT 19):
BAI2 with `bai2` (ministryofjustice/bai2), ISO 20022 camt.053 with `pycamt`. Nothing here touches the database."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal, InvalidOperation

from bai2.bai2 import parse_from_string
from bai2.constants import FundsType, TypeCodeTransaction
from bai2.exceptions import IntegrityException, NotSupportedYetException, ParsingException
from pycamt.parser import Camt053ParseError, Camt053Parser

BAI2, CAMT053 = "bai2", "camt053"
OPENING_LEDGER, CLOSING_LEDGER = "010", "015"
CAMT_DIRECTIONS = {"CRDT": "credit", "DBIT": "debit"}


class StatementError(ValueError):
    """The file is not a statement this service reads: nothing of it is kept."""


@dataclass(frozen=True)
class LineDraft:
    value_date: date
    amount: int
    direction: str
    type_code: str
    bank_reference: str
    customer_reference: str
    text: str


@dataclass
class StatementDraft:
    format: str
    account: str
    statement_date: date
    opening_balance: int | None = None
    closing_balance: int | None = None
    lines: list[LineDraft] = field(default_factory=list)


def statement_format(head: bytes) -> str | None:
    """Which statement format a file's first bytes show, or None: BAI2 opens with its file header record `01,`,
    camt.053 is XML whose first element is a camt.053 Document."""
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text.startswith(b"01,"):
        return BAI2
    if text.startswith(b"<") and b"camt.053" in head:
        return CAMT053
    return None


def _cents(text: str | None, *, what: str) -> int:
    try:
        value = Decimal((text or "").strip()) * 100
    except InvalidOperation:
        raise StatementError(f"{what}: {text!r} is not an amount") from None
    if value != value.to_integral_value():
        raise StatementError(f"{what}: {text!r} has fractions of a cent")
    return int(value)


def _clip(value: object, width: int) -> str:
    return str(value or "").strip()[:width]


def bai2_read(data: bytes) -> StatementDraft:
    """A BAI2 file of one account (one group, one account record): its 010/015 balances and its transaction
    details. A value-dated detail (funds type V) takes its own date, any other the group's as-of date."""
    try:
        parsed = parse_from_string(data.decode("ascii"), check_integrity=True)
    except (
        IntegrityException,
        NotSupportedYetException,
        ParsingException,
        UnicodeDecodeError,
        ValueError,
        IndexError,
        KeyError,
        StopIteration,
    ) as exc:
        raise StatementError(f"not a BAI2 file this service reads: {type(exc).__name__}: {exc}") from None
    accounts = [(group, account) for group in parsed.children for account in group.children]
    if len(accounts) != 1:
        raise StatementError(f"a statement holds one account; this BAI2 file holds {len(accounts)}")
    ((group, account),) = accounts
    as_of = group.header.as_of_date
    summaries = {item.type_code.code: item.amount for item in account.header.summary_items}
    draft = StatementDraft(
        format=BAI2,
        account=_clip(account.header.customer_account_number, 34),
        statement_date=as_of,
        opening_balance=summaries.get(OPENING_LEDGER),
        closing_balance=summaries.get(CLOSING_LEDGER),
    )
    for detail in account.children:
        kind = detail.type_code.transaction
        if kind not in (TypeCodeTransaction.credit, TypeCodeTransaction.debit) or not detail.amount:
            raise StatementError(f"type code {detail.type_code.code} is not a credit or debit detail of an amount")
        value_date = as_of
        if detail.funds_type == FundsType.value_dated and (detail.availability or {}).get("date"):
            value_date = detail.availability["date"]
        draft.lines.append(
            LineDraft(
                value_date=value_date,
                amount=int(detail.amount),
                direction="credit" if kind == TypeCodeTransaction.credit else "debit",
                type_code=detail.type_code.code,
                bank_reference=_clip(detail.bank_reference, 64),
                customer_reference=_clip(detail.customer_reference, 64),
                text=_clip(detail.text, 255),
            )
        )
    return draft


def _camt_statement(parser: Camt053Parser) -> tuple[str, date, int | None, int | None]:
    """The account, the statement's day and its opening and closing ledger balances. pycamt reads a statement's
    account only as an IBAN and its balances through float; a US settlement account has no IBAN (Othr/Id) and
    cents must stay exact, so these few elements are read from pycamt's own parsed tree (lxml, entities off)."""
    ns = parser.namespaces
    statements = parser.tree.findall(".//Stmt", ns)
    if len(statements) != 1:
        raise StatementError(f"a statement holds one account; this camt.053 file holds {len(statements)} statements")
    (statement,) = statements
    account = statement.findtext("./Acct/Id/Othr/Id", None, ns) or statement.findtext("./Acct/Id/IBAN", None, ns)
    balances: dict[str, tuple[int, date | None]] = {}
    for balance in statement.findall("./Bal", ns):
        code = balance.findtext("./Tp/CdOrPrtry/Cd", "", ns)
        amount = _cents(balance.findtext("./Amt", None, ns), what=f"balance {code}")
        if balance.findtext("./CdtDbtInd", "", ns) == "DBIT":
            amount = -amount
        day = balance.findtext("./Dt/Dt", None, ns)
        balances[code] = (amount, date.fromisoformat(day) if day else None)
    closing = balances.get("CLBD")
    created = statement.findtext("./CreDtTm", None, ns)
    day = (closing and closing[1]) or (date.fromisoformat(created[:10]) if created else None)
    if not account or day is None:
        raise StatementError("a camt.053 statement needs its account (Acct/Id) and its day (CLBD or CreDtTm)")
    opening = balances.get("OPBD")
    return account.strip(), day, opening and opening[0], closing and closing[0]


def camt053_read(data: bytes) -> StatementDraft:
    """A camt.053 Bank-to-Customer Statement of one account: every booked entry is a line (its TxDtls' EndToEndId
    the customer's reference, AcctSvcrRef the bank's)."""
    try:
        parser = Camt053Parser(data)
        entries = parser.get_transactions()
    except (Camt053ParseError, ValueError, SyntaxError, AttributeError) as exc:
        raise StatementError(f"not a camt.053 file this service reads: {type(exc).__name__}: {exc}") from None
    if parser.version == "unknown":
        raise StatementError("not a camt.053 document (its namespace names no camt.053 version)")
    account, day, opening, closing = _camt_statement(parser)
    draft = StatementDraft(
        format=CAMT053, account=account, statement_date=day, opening_balance=opening, closing_balance=closing
    )
    for number, entry in enumerate(entries, 1):
        direction = CAMT_DIRECTIONS.get(entry.get("CreditDebitIndicator") or "")
        if direction is None or entry.get("Status") not in (None, "BOOK"):
            raise StatementError(f"entry {number}: not a booked credit or debit")
        codes = (entry.get(key) for key in ("BankTransactionCode", "TransactionFamilyCode", "TransactionSubFamilyCode"))
        value_date = entry.get("ValueDate") or entry.get("BookingDate")
        try:
            value_day = date.fromisoformat(value_date[:10]) if value_date else day
        except ValueError:
            raise StatementError(f"entry {number}: {value_date!r} is not a date") from None
        amount = _cents(entry.get("Amount"), what=f"entry {number}")
        if amount <= 0:
            raise StatementError(f"entry {number}: an amount must be positive (the indicator gives its direction)")
        draft.lines.append(
            LineDraft(
                value_date=value_day,
                amount=amount,
                direction=direction,
                type_code="/".join(code for code in codes if code),
                bank_reference=_clip(entry.get("TransactionID"), 64),
                customer_reference=_clip(entry.get("EndToEndId"), 64),
                text=_clip(entry.get("AdditionalEntryInformation"), 255),
            )
        )
    return draft


READERS = {BAI2: bai2_read, CAMT053: camt053_read}


def statement_read(data: bytes) -> StatementDraft:
    kind = statement_format(data[:512])
    if kind is None:
        raise StatementError("neither BAI2 (a file header record 01) nor an ISO 20022 camt.053 document")
    return READERS[kind](data)
