"""Writes of reconciliation (CONTRACT 19): a statement read once, a reconciliation run (expectations made,
lines matched by the rules of matching.py, exceptions opened and closed), and what Finance does by hand."""

from __future__ import annotations

import hashlib
import zlib
from dataclasses import dataclass, field
from datetime import date, datetime
from functools import lru_cache
from typing import Any
from uuid import uuid4

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q

from reconciliation import matching
from reconciliation.expectations import expectations_make
from reconciliation.formats import StatementDraft, StatementError, statement_read
from reconciliation.models import (
    ExpectedPayment,
    ItemState,
    Match,
    ReconciliationException,
    Statement,
    StatementLine,
)
from transactions import calendar
from vault.threads import serialized

RECONCILE_LOCK_KEY = zlib.crc32(b"reconciliation.reconcile")
SIGN = {"credit": 1, "debit": -1}
Exc = ReconciliationException


class StatementRefused(Exception):
    """The file is not read: not a statement, of another account, or a name already used for other content."""


@dataclass(frozen=True)
class StatementImport:
    statement: Statement
    lines: int
    duplicate: bool

    def as_json(self) -> dict[str, Any]:
        return {"statementUuid": str(self.statement.uuid), "lines": self.lines, "duplicate": self.duplicate}


def _digits(account: str) -> str:
    return "".join(character for character in account if character.isalnum())


def _account_check(draft: StatementDraft) -> None:
    """Our settlement account's statement only; the numbers are named by their last four, never whole."""
    ours = _digits(settings.BANK_SETTLEMENT_ACCOUNT or "")
    if not ours:
        raise StatementRefused("BANK_SETTLEMENT_ACCOUNT is not set: no statement can be checked, none is read")
    theirs = _digits(draft.account)
    if theirs.lstrip("0") != ours.lstrip("0"):
        raise StatementRefused(
            f"a statement of account ending {theirs[-4:]}, not our settlement account (BANK_SETTLEMENT_ACCOUNT, "
            f"ending {ours[-4:]}): set aside, nothing read"
        )


def statement_import(*, name: str, data: bytes, at: datetime) -> StatementImport:
    """Read a statement file and keep it with its lines, once: the same content again (under any name) is a
    duplicate with no line. Raises StatementRefused (nothing kept)."""
    digest = hashlib.sha256(data).hexdigest()
    known = Statement.objects.filter(sha256=digest).first()
    if known is not None:
        return StatementImport(statement=known, lines=0, duplicate=True)
    if Statement.objects.filter(name=name).exists():
        raise StatementRefused(f"a statement named {name} with other content was read before: not read again")
    try:
        draft = statement_read(data)
    except StatementError as exc:
        raise StatementRefused(str(exc)) from None
    _account_check(draft)
    with transaction.atomic():
        statement = Statement.objects.create(
            name=name,
            sha256=digest,
            format=draft.format,
            account_last_four=_digits(draft.account)[-4:],
            statement_date=draft.statement_date,
            opening_balance=draft.opening_balance,
            closing_balance=draft.closing_balance,
            line_count=len(draft.lines),
            received_at=at,
        )
        StatementLine.objects.bulk_create(
            [
                StatementLine(statement=statement, position=position, **vars(line))
                for position, line in enumerate(draft.lines, 1)
            ],
            batch_size=2000,
        )
    return StatementImport(statement=statement, lines=len(draft.lines), duplicate=False)


@dataclass
class ReconcileResult:
    lines: int = 0
    matched: int = 0
    unmatched_lines: int = 0
    unmatched_expected: int = 0
    expected_made: int = 0
    rules: dict[str, int] = field(default_factory=dict)
    exceptions: list[dict[str, Any]] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {
            "lines": self.lines,
            "matched": self.matched,
            "unmatchedLines": self.unmatched_lines,
            "unmatchedExpected": self.unmatched_expected,
            "exceptions": self.exceptions,
        }


def _open_items() -> tuple[list[matching.Line], list[matching.Expected]]:
    lines = [
        matching.Line(id=pk, amount=amount, direction=direction, day=day, reference=reference, type_code=code)
        for pk, amount, direction, day, reference, code in StatementLine.objects.filter(state=ItemState.OPEN)
        .order_by("value_date", "pk")
        .values_list("pk", "amount", "direction", "value_date", "customer_reference", "type_code")
        .iterator(chunk_size=5000)
    ]
    expected = [
        matching.Expected(id=pk, amount=amount, direction=direction, day=day, reference=reference, group=group)
        for pk, amount, direction, day, reference, group in ExpectedPayment.objects.filter(state=ItemState.OPEN)
        .order_by("expected_on", "pk")
        .values_list("pk", "amount", "direction", "expected_on", "reference", "group")
        .iterator(chunk_size=5000)
    ]
    return lines, expected


def _items_point(model, pairs: list[tuple[int, int]]) -> None:
    """Each (row, match) pair written set-based: Django's bulk_update builds a CASE of every row per batch (O(rows^2)
    to compile: 277 lines a second on the benchmark). PostgreSQL: one UPDATE ... FROM (VALUES ...) a chunk; SQLite
    (in process, no round trip): one short UPDATE a row, run many times."""
    table, quote = model._meta.db_table, connection.ops.quote_name
    matched = ItemState.MATCHED.value
    with connection.cursor() as cursor:
        if connection.vendor != "postgresql":
            sql = f"UPDATE {quote(table)} SET match_id = %s, state = %s WHERE id = %s"  # noqa: S608 - model's names
            cursor.executemany(sql, [(match_id, matched, pk) for pk, match_id in pairs])
            return
        for start in range(0, len(pairs), 2000):
            chunk = pairs[start : start + 2000]
            values = ", ".join(["(%s::bigint, %s::bigint)"] * len(chunk))
            sql = (
                f"UPDATE {quote(table)} AS t SET match_id = v.m, state = %s FROM (VALUES {values}) AS v(id, m) "  # noqa: S608 - model's names
                "WHERE t.id = v.id"
            )
            cursor.execute(sql, [matched, *(value for pair in chunk for value in pair)])


def _matches_insert(rules: list[str], at: datetime) -> list[int]:
    """A Match row a rule, in order, and their ids: inserted in one statement run many times and read back by
    uuid (bulk_create's model instances were most of a run's time)."""
    uuids = [uuid4() for _ in rules]
    table, quote = Match._meta.db_table, connection.ops.quote_name
    columns = ", ".join(quote(name) for name in ("uuid", "rule", "reason", "created_at"))
    sql = f"INSERT INTO {quote(table)} ({columns}) VALUES (%s, %s, '', %s)"  # noqa: S608 - names from the model
    uuid_field, at_value = (
        Match._meta.get_field("uuid"),
        Match._meta.get_field("created_at").get_db_prep_value(at, connection),
    )
    with connection.cursor() as cursor:
        cursor.executemany(
            sql,
            [
                (uuid_field.get_db_prep_value(key, connection), rule, at_value)
                for key, rule in zip(uuids, rules, strict=True)
            ],
        )
    ids: dict = {}
    for start in range(0, len(uuids), 1000):
        ids.update(Match.objects.filter(uuid__in=uuids[start : start + 1000]).values_list("uuid", "pk"))
    return [ids[key] for key in uuids]


def _matches_write(proposals: list[matching.Proposal], at: datetime) -> None:
    """Each proposal's Match row, its items pointed at it, and the exceptions of those items closed."""
    match_ids = _matches_insert([proposal.rule for proposal in proposals], at)
    lines, expected = [], []
    for proposal, match_id in zip(proposals, match_ids, strict=True):
        lines += [(line.id, match_id) for line in proposal.lines]
        expected += [(item.id, match_id) for item in proposal.expected]
    _items_point(StatementLine, lines)
    _items_point(ExpectedPayment, expected)
    line_ids, expected_ids = [pk for pk, _ in lines], [pk for pk, _ in expected]
    for start in range(0, max(len(line_ids), len(expected_ids)), 1000):
        Exc.objects.filter(
            Q(line_id__in=line_ids[start : start + 1000]) | Q(expected_id__in=expected_ids[start : start + 1000]),
            state__in=(Exc.State.OPEN, Exc.State.WRITE_OFF_ASKED),
        ).update(state=Exc.State.MATCHED, closed_at=at)


def exception_record(exception: ReconciliationException) -> dict[str, Any]:
    item = exception.line or exception.expected
    day = exception.line.value_date if exception.line else exception.expected.expected_on
    return {
        "uuid": str(exception.uuid),
        "kind": exception.kind,
        "date": day.isoformat(),
        "amount": item.amount,
        "direction": item.direction,
        "reference": exception.line.customer_reference if exception.line else exception.expected.reference,
    }


@lru_cache(maxsize=4096)
def exception_due(day: date) -> date:
    """The day an item of `day` still open becomes an exception: one banking day later."""
    return calendar.add_business_days(day, 1)


def _exceptions_open(lines: list[matching.Line], expected: list[matching.Expected], at: datetime) -> list[Exc]:
    """An item still open on its day plus one banking day becomes an exception (once)."""
    today = calendar.eastern_now(at).date()
    have_lines = set(Exc.objects.filter(line_id__isnull=False).values_list("line_id", flat=True))
    have_expected = set(Exc.objects.filter(expected_id__isnull=False).values_list("expected_id", flat=True))
    drafts = []
    for kind, items, have, key in (
        (Exc.Kind.UNMATCHED_LINE, lines, have_lines, "line_id"),
        (Exc.Kind.UNSEEN_EXPECTED, expected, have_expected, "expected_id"),
    ):
        for item in items:
            due = exception_due(item.day)
            if not item.taken and item.id not in have and today >= due:
                drafts.append(Exc(kind=kind, opened_at=at, due_on=due, **{key: item.id}))
    return Exc.objects.bulk_create(drafts, batch_size=1000)


def reconcile_run(*, at: datetime) -> ReconcileResult:
    """Make the new expectations, match every open line and expectation, open the exceptions now due. One run
    at a time; a rerun finds nothing new to do."""
    result = ReconcileResult()
    with serialized(RECONCILE_LOCK_KEY), transaction.atomic():
        result.expected_made = expectations_make(at=at)
        lines, expected = _open_items()
        proposals = matching.match_all(lines, expected)
        _matches_write(proposals, at)
        opened = _exceptions_open(lines, expected, at)
    result.lines = len(lines)
    result.matched = sum(len(proposal.lines) for proposal in proposals)
    for proposal in proposals:
        result.rules[proposal.rule] = result.rules.get(proposal.rule, 0) + 1
    result.unmatched_lines = sum(1 for line in lines if not line.taken)
    result.unmatched_expected = sum(1 for item in expected if not item.taken)
    shown = Exc.objects.filter(pk__in=[exception.pk for exception in opened]).select_related("line", "expected")
    result.exceptions = [exception_record(exception) for exception in shown.order_by("pk")]
    return result


class FinanceRefused(Exception):
    """What Finance asked cannot be done (said in one line in the admin)."""


def _locked(exceptions: list[Exc]) -> list[Exc]:
    rows = (
        Exc.objects.select_for_update(of=("self",))
        .filter(pk__in=[exception.pk for exception in exceptions])
        .order_by("pk")
    )
    return list(rows.select_related("line", "expected"))


@transaction.atomic
def match_by_hand(*, exceptions: list[Exc], user, reason: str, at: datetime) -> Match:
    """Finance's match of open exceptions' lines and expectations: at least one of each, and the money the lines
    moved equal to the money expected (signed by direction), with a reason."""
    if not reason.strip():
        raise FinanceRefused("a match by hand needs a reason")
    locked = _locked(exceptions)
    if any(exception.state not in (Exc.State.OPEN, Exc.State.WRITE_OFF_ASKED) for exception in locked):
        raise FinanceRefused("only open exceptions are matched by hand")
    lines = [exception.line for exception in locked if exception.line]
    expected = [exception.expected for exception in locked if exception.expected]
    if not lines or not expected:
        raise FinanceRefused("a match by hand takes at least one statement line and one expected payment")
    moved = sum(SIGN[line.direction] * line.amount for line in lines)
    wanted = sum(SIGN[item.direction] * item.amount for item in expected)
    if moved != wanted:
        raise FinanceRefused(f"the lines move {moved} cents and the expectations {wanted}: they are not one payment")
    match = Match.objects.create(rule=Match.Rule.BY_HAND, reason=reason.strip()[:500], matched_by=user, created_at=at)
    StatementLine.objects.filter(pk__in=[line.pk for line in lines]).update(state=ItemState.MATCHED, match=match)
    ExpectedPayment.objects.filter(pk__in=[item.pk for item in expected]).update(state=ItemState.MATCHED, match=match)
    Exc.objects.filter(pk__in=[exception.pk for exception in locked]).update(state=Exc.State.MATCHED, closed_at=at)
    return match


@transaction.atomic
def write_off_ask(*, exception: Exc, user, reason: str) -> Exc:
    if not reason.strip():
        raise FinanceRefused("a write-off needs a reason")
    (locked,) = _locked([exception])
    if locked.state != Exc.State.OPEN:
        raise FinanceRefused(f"{locked.uuid} is {locked.state}: only an open exception is written off")
    locked.state, locked.write_off_reason, locked.write_off_asked_by = Exc.State.WRITE_OFF_ASKED, reason[:500], user
    locked.save(update_fields=["state", "write_off_reason", "write_off_asked_by"])
    return locked


@transaction.atomic
def write_off_approve(*, exception: Exc, user, at: datetime) -> Exc:
    """A second person approves: the item is written off and the exception closed. The one who asked cannot."""
    (locked,) = _locked([exception])
    if locked.state != Exc.State.WRITE_OFF_ASKED:
        raise FinanceRefused(f"{locked.uuid} is {locked.state}: nothing asked to approve")
    if locked.write_off_asked_by_id == user.pk:
        raise FinanceRefused("a write-off is approved by a second person, not by the one who asked for it")
    locked.state, locked.write_off_approved_by, locked.closed_at = Exc.State.WRITTEN_OFF, user, at
    locked.save(update_fields=["state", "write_off_approved_by", "closed_at"])
    item = locked.line or locked.expected
    type(item).objects.filter(pk=item.pk).update(state=ItemState.WRITTEN_OFF)
    return locked
