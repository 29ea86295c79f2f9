"""The sandbox: what the bank would do with a sandbox company's entries, without a bank.

Every outcome is a NACHA return or NOC file written by `return_file_for`, as the receiving bank would send it,
and read by the same `returns_import` as a real one, so the records, events and webhooks are those of the real
path; but each item is applied to the entry the simulation names (`named`), never through the matcher of bank
files (CONTRACT 13: the sandbox is walled off from them). A sandbox company's clock only moves forward; `originate`
and `settle` run for that company alone."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from uuid import UUID, uuid4

from django.db import transaction
from django.db.models import Q
from django.dispatch import Signal

from accounts.models import Company, MerchantSettings
from transactions import calendar
from transactions.ach.finality import finality_mark
from transactions.ach.holds import transaction_hold_release
from transactions.ach.origination import transactions_originate
from transactions.ach.return_files import ReturnFileSource
from transactions.ach.returns import returns_import
from transactions.ach.settlement import transactions_settle
from transactions.charges.retry_attempts import retries_run
from transactions.models import DebitHold, RiskAlert, Status, Transaction
from transactions.return_codes import CHANGE_CODES
from transactions.risk.policies import HOLD_CODE as RETURN_HOLD_CODE
from transactions.risk.policies import current_level, debit_holds_lift
from transactions.risk.return_rates import CATEGORIES, THRESHOLDS, today_eastern
from transactions.sandbox import magic
from transactions.sandbox.bank_files import Returned, in_file_order, return_file_for
from transactions.sandbox.magic import Outcome
from transactions.selectors import company_clock_now, transaction_get
from transactions.state import Actor
from vault.error_codes import ErrorCode
from vault.errors import ApiError, Conflict, NotFound
from vault.records import iso_utc

# A sandbox day: the morning file is cut at OPENS, the day settles at CLOSES (after the Fed's settlement time).
SANDBOX_DAY_OPENS = time(9, 0)
SANDBOX_DAY_CLOSES = time(18, 0)
MAX_ADVANCE_DAYS = 90
# A return is matched to an entry sent within this many days (transactions.ach.returns): older magic late
# returns could never be matched, so they are not looked for.
RETURN_MATCH_DAYS = 65


def sandbox_company(company: Company) -> Company:
    """The caller's company when it is a sandbox one; a live company gets 404, as if the route did not exist."""
    if not company.is_sandbox:
        raise NotFound("Not found: the /sandbox routes exist for sandbox companies only")
    return company


sandbox_clock_now = company_clock_now


def _import(entries: Sequence[Returned], *, at: datetime, label: str) -> dict:
    """The bank's file for these sandbox entries, each item applied to the entry it was written for."""
    ordered = in_file_order(entries)
    if any(not txn.company.is_sandbox for txn, _code, _corrected in ordered):
        raise ValueError("a sandbox simulation names sandbox entries only")
    text = return_file_for(ordered, at=at)
    return returns_import(
        source=ReturnFileSource.of(text.encode("ascii")),
        filename=f"sandbox-{label}-{uuid4().hex}.ach",
        at=at,
        named=[txn.pk for txn, _code, _corrected in ordered],
    )


def _simulated_entry(company: Company, transaction_uuid: UUID) -> Transaction:
    txn = transaction_get(company=company, transaction_uuid=transaction_uuid)
    if not txn.trace_number or txn.status not in (Status.PROCESSING, Status.SETTLED):
        raise Conflict(
            f"only an entry sent in a NACHA file (Processing or Settled) can come back from the bank; this one is "
            f"{txn.status}: advance the clock first",
            code=ErrorCode.NOT_SIMULATABLE,
            field="transactionUuid",
        )
    return txn


def _refused(summary: dict, txn: Transaction, field: str) -> ApiError:
    reasons = [item.get("reason", "") for item in summary.get("exceptions", []) if item.get("reason")]
    why = reasons[0] if reasons else "the bank's file did not apply to this entry (it was already returned or noticed)"
    return Conflict(f"not applied: {why}", code=ErrorCode.NOT_SIMULATABLE, field=field, data={"import": summary})


def sandbox_return_simulate(*, company: Company, transaction_uuid: UUID, code: str) -> Transaction:
    """The receiving bank returns the entry with `code`: a return before it settles, a late return after."""
    sandbox_company(company)
    if not magic.is_simulated_return(code):
        raise ApiError(
            f"{code} is not a return a receiving bank sends (R01-R85 of the code table, without the dishonored "
            "and contested R61-R77)",
            code=ErrorCode.INVALID_CHOICE,
            field="code",
        )
    txn = _simulated_entry(company, transaction_uuid)
    summary = _import([(txn, code, {})], at=sandbox_clock_now(company), label="return")
    if not summary.get("returns"):
        raise _refused(summary, txn, "code")
    return transaction_get(company=company, transaction_uuid=transaction_uuid)


def sandbox_notice_simulate(
    *, company: Company, transaction_uuid: UUID, code: str, corrected: dict[str, str] | None = None
) -> Transaction:
    """The receiving bank sends a notice of change `code`, with `corrected` data or the sandbox's defaults."""
    sandbox_company(company)
    if not magic.is_simulated_notice(code):
        raise ApiError(f"{code} is not a notice-of-change code (C01-C14)", code=ErrorCode.INVALID_CHOICE, field="code")
    txn = _simulated_entry(company, transaction_uuid)
    allowed = {field.value for field in CHANGE_CODES[code].corrects}
    unknown = sorted(set(corrected or {}) - allowed)
    if unknown:
        raise ApiError(
            f"{code} corrects {', '.join(sorted(allowed)) or 'nothing'}, not {', '.join(unknown)}",
            field="correctedData",
        )
    values = magic.corrected_values(code, account_type=txn.account_type, requested=corrected)
    summary = _import([(txn, code, values)], at=sandbox_clock_now(company), label="notice")
    if not summary.get("notices"):
        raise _refused(summary, txn, "correctedData")
    return transaction_get(company=company, transaction_uuid=transaction_uuid)


def _magic_entries(candidates, outcomes: set[Outcome]) -> list[tuple[Transaction, str, dict[str, str]]]:
    entries = []
    for txn in candidates:
        found = magic.outcome_for(txn.account_number)
        if found is None or found[0] not in outcomes:
            continue
        outcome, code = found
        corrected = magic.corrected_values(code, account_type=txn.account_type) if outcome == Outcome.NOTICE else {}
        entries.append((txn, code, corrected))
    return entries


def _sandbox_rows(company_ids: Sequence[int] | None) -> Q:
    scope = Q(company__is_sandbox=True, seeded__isnull=True) & ~Q(trace_number="")
    return scope & Q(company_id__in=company_ids) if company_ids is not None else scope


@dataclass
class SandboxOutcomes:
    returns: int = 0
    notices: int = 0
    late_returns: int = 0

    def as_json(self) -> dict[str, int]:
        return {"returns": self.returns, "notices": self.notices, "lateReturns": self.late_returns}


def sandbox_outcomes_apply(*, at: datetime, company_ids: Sequence[int] | None = None) -> SandboxOutcomes:
    """What the bank sends back by `at` for magic account numbers of sandbox entries: returns and NOCs for the
    entries about to settle, late returns for those settled LATE_RETURN_AFTER_DAYS ago. `settle` runs it first."""
    result = SandboxOutcomes()
    due = Transaction.objects.filter(
        _sandbox_rows(company_ids), status=Status.PROCESSING, expected_to_settle_at__lte=at
    ).select_related("company")
    entries = _magic_entries(due.order_by("id"), {Outcome.RETURN, Outcome.NOTICE})
    if entries:
        summary = _import(entries, at=at, label="settle")
        result.returns, result.notices = summary.get("returns", 0), summary.get("notices", 0)
    late_by = at - timedelta(days=magic.LATE_RETURN_AFTER_DAYS)
    settled = Transaction.objects.filter(
        _sandbox_rows(company_ids),
        status=Status.SETTLED,
        expected_to_settle_at__lte=late_by,
        expected_to_settle_at__gt=at - timedelta(days=RETURN_MATCH_DAYS),
    ).select_related("company")
    late = _magic_entries(settled.order_by("id"), {Outcome.LATE_RETURN})
    if late:
        result.late_returns = _import(late, at=at, label="late-return").get("returns", 0)
    return result


# Sent with `company_ids` and `at` as each sandbox day opens, before its file is cut: what runs daily before
# `originate` answers (schedules.SchedulesConfig.ready connects run_schedules). A signal: those apps sit above this.
sandbox_day_opens = Signal()


def sandbox_clock_advance(*, company: Company, days: int) -> dict:
    """Move the company's clock `days` banking days on. Each day: its schedules run (`run_schedules`), the due
    re-presentments are made (`run_retries`), the morning file is cut (`originate`), the day settles in the evening
    (`settle`, the bank's outcomes first) and finality moves on (`mark_final`), for this company alone."""
    sandbox_company(company)
    if not 1 <= days <= MAX_ADVANCE_DAYS:
        raise ApiError(f"days must be between 1 and {MAX_ADVANCE_DAYS}", code=ErrorCode.OUT_OF_RANGE, field="days")
    started = company.sandbox_clock_at
    now = sandbox_clock_now(company)
    totals = {"batches": 0, "transactions": 0, "settled": 0, **SandboxOutcomes().as_json()}
    totals |= {"retries": 0, "fundsAvailable": 0, "final": 0}
    only = [company.pk]
    for _ in range(days):
        day = calendar.next_business_day(calendar.eastern_now(now).date(), include_today=False)
        opens = datetime.combine(day, SANDBOX_DAY_OPENS, tzinfo=calendar.EASTERN)
        now = datetime.combine(day, SANDBOX_DAY_CLOSES, tzinfo=calendar.EASTERN)
        sandbox_day_opens.send(sender=None, company_ids=only, at=opens)
        totals["retries"] += retries_run(at=opens, company_ids=only).created
        originated = transactions_originate(at=opens, company_ids=only)
        outcomes = sandbox_outcomes_apply(at=now, company_ids=only)
        settled = transactions_settle(at=now, company_ids=only)
        finality = finality_mark(at=now, company_ids=only)
        totals["fundsAvailable"] += finality.available
        totals["final"] += finality.final
        totals["batches"] += originated.batches
        totals["transactions"] += originated.transactions
        totals["settled"] += settled.transactions
        for key, value in outcomes.as_json().items():
            totals[key] += value
    # Compare-and-set: two advances at once cannot both move the clock from the same place.
    # (filter(sandbox_clock_at=None) is IS NULL: the first advance claims a clock nobody has set.)
    if not Company.objects.filter(pk=company.pk, sandbox_clock_at=started).update(sandbox_clock_at=now):
        raise Conflict(
            "another clock advance of this company ran at the same time; read the clock and try again",
            code=ErrorCode.SANDBOX_CLOCK_MOVED,
            field="days",
        )
    company.sandbox_clock_at = now
    return {"now": iso_utc(now), "days": days, **totals}


@transaction.atomic
def sandbox_risk_reset(*, company: Company, actor: Actor) -> dict:
    """A sandbox company starts the return-rate program afresh (CONTRACT 13): every debit hold of it (company and
    customers) lifted, the debits they held released (as the holds' reasons say: newcomer review 2026-12-07 D2, a
    re-presentment held by its own return stayed HELD), its rates counting only what is sent and returned from its
    clock's now on, and each rate's level back to none, so the next breach is announced and held again as the first
    was."""
    at = sandbox_clock_now(company)
    lifted = debit_holds_lift(holds=DebitHold.objects.filter(company=company), at=at)
    held = Transaction.objects.filter(
        company=company, status=Status.HELD, hold__hold_code=RETURN_HOLD_CODE, hold__released_at__isnull=True
    )
    released = sum(
        transaction_hold_release(txn=txn, actor=actor, at=at, reason="the sandbox's risk reset lifted its debit hold")
        for txn in held.order_by("pk")
    )
    MerchantSettings.objects.filter(pk=company.pk).update(return_rates_since=at)
    for category in CATEGORIES:
        if current_level(company_id=company.pk, category=category.value) is not None:
            RiskAlert.objects.create(
                company=company,
                category=category.value,
                level=RiskAlert.Level.CLEARED,
                returns=0,
                debits=0,
                rate=0.0,
                threshold=THRESHOLDS[category],
                as_of=today_eastern(at),
                created_at=at,
            )
    return {"holdsLifted": lifted, "debitsReleased": released, "returnRatesSince": iso_utc(at)}
