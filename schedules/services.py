"""Every write to a schedule: create, pause, resume, cancel, and `schedules_run` (the daily `run_schedules`), which
announces each date 10 days ahead, makes each date's debit once through the charge service within 2 banking days of
it, and stops a schedule whose mandate was revoked or whose method was blocked. Each schedule is worked under its row
lock, and its debit's ScheduledDebit row is unique per date: two runs at once make each debit once."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from dateutil.relativedelta import relativedelta
from django.db import transaction
from django.utils import timezone

from accounts.models import Company
from customers.models import Customer
from events.outbox import event_record
from events.types import EventType
from mandates.errors import OutsideMandateTerms
from mandates.models import Mandate
from mandates.rules import mandate_interval_fit, mandate_terms_fit
from payments.models import PaymentMethod
from schedules.dates import dates_from, schedule_date
from schedules.models import Schedule, ScheduledDebit
from schedules.records import schedule_record
from schedules.state import schedule_status_write
from transactions.calendar import add_business_days, eastern_now, next_business_day
from transactions.charges.services import ChargeRequest, transaction_charge
from transactions.methods import ACH
from transactions.models import RetryAttempt, Status, Transaction, TransactionType
from transactions.records import held_line
from transactions.state import Actor
from vault.error_codes import ErrorCode
from vault.errors import ApiError, Conflict

HORIZON = relativedelta(years=5)  # a schedule's dates are at most this far ahead (CONTRACT 14, 2026-12-07)
NOTICE_DAYS = 10  # Reg E: notice of a varying debit 10 days ahead; the merchant sends it on our event
DEBIT_BANKING_DAYS = 2  # a date's debit is made this many banking days ahead, so it goes out in time
RUN_ACTOR = Actor.command("run_schedules")
_LOCKED = ("customer", "payment_method", "mandate")


def _announce(schedule: Schedule, type: str, **extra) -> None:
    data = {**schedule_record(schedule), **extra}
    event_record(company_id=schedule.company_id, type=type, object_uuid=schedule.uuid, data=data)


@dataclass(frozen=True)
class ScheduleTerms:
    amount: int
    interval: str
    start_date: date
    day_of_month: int | None = None
    end_date: date | None = None
    count: int | None = None
    retry_policy: str | None = None  # "none": the debits opt out of automatic re-presentment (CONTRACT 15)
    purpose: str | None = None  # passed to each debit (CONTRACT 11, 14): goods make a WEB debit's PURCHASE


def _terms_check(terms: ScheduleTerms, *, today: date) -> None:
    if terms.start_date < today:
        raise ApiError("startDate cannot be in the past", field="startDate", code=ErrorCode.PAST_DATE)
    if terms.end_date is not None and terms.count is not None:
        raise ApiError("send endDate or count, not both", field="count")
    if terms.end_date is not None and terms.end_date < terms.start_date:
        raise ApiError("endDate is before startDate", field="endDate", code=ErrorCode.OUT_OF_RANGE)
    if terms.day_of_month is not None and terms.interval != Schedule.Interval.MONTHLY:
        raise ApiError("dayOfMonth applies to a monthly schedule only", field="dayOfMonth")
    horizon = today + HORIZON
    for name, day in (("startDate", terms.start_date), ("endDate", terms.end_date)):
        if day is not None and day > horizon:
            raise ApiError(
                f"{name} is more than 5 years ahead (after {horizon})", field=name, code=ErrorCode.OUT_OF_RANGE
            )


@transaction.atomic
def schedule_create(
    *,
    company: Company,
    customer: Customer,
    payment_method: PaymentMethod,
    mandate: Mandate,
    terms: ScheduleTerms,
    now: datetime,
) -> Schedule:
    """A schedule under a recurring mandate of this customer and method, within its terms (409 otherwise)."""
    _terms_check(terms, today=eastern_now(now).date())
    if mandate.type != Mandate.Type.RECURRING:
        raise OutsideMandateTerms("a schedule needs a recurring mandate")
    mandate_terms_fit(mandate, customer=customer, saved=payment_method, sec_code=mandate.sec_code, amount=terms.amount)
    mandate_interval_fit(mandate, terms.interval)
    schedule = Schedule.objects.create(
        company=company,
        customer=customer,
        payment_method=payment_method,
        mandate=mandate,
        amount=terms.amount,
        interval=terms.interval,
        day_of_month=terms.day_of_month,
        start_date=terms.start_date,
        end_date=terms.end_date,
        count=terms.count,
        retry_policy=terms.retry_policy,
        purpose=terms.purpose,
        created_at=now,
        updated_at=now,
    )
    if schedule_date(schedule, 0) is None:
        raise ApiError("the schedule has no date: endDate is before its first date", field="endDate")
    return schedule


def _locked(schedule: Schedule) -> Schedule:
    return (
        Schedule.objects.select_for_update(of=("self",))
        .select_related(*_LOCKED)
        .get(pk=schedule.pk, company_id=schedule.company_id)
    )


# Which moves a merchant may make, from which statuses.
MOVES = {
    "pause": ({Schedule.Status.ACTIVE}, Schedule.Status.PAUSED),
    "resume": ({Schedule.Status.PAUSED}, Schedule.Status.ACTIVE),
    "cancel": ({Schedule.Status.ACTIVE, Schedule.Status.PAUSED}, Schedule.Status.CANCELLED),
}


@transaction.atomic
def schedule_move(*, schedule: Schedule, move: str, now: datetime | None = None) -> Schedule:
    """pause, resume or cancel; another status is 409 `schedule_not_active`. A resumed schedule skips the dates
    that passed while it was paused."""
    now = now or timezone.now()
    locked = _locked(schedule)
    sources, target = MOVES[move]
    if locked.status not in sources:
        raise Conflict(f"a {locked.status} schedule cannot {move}", code=ErrorCode.SCHEDULE_NOT_ACTIVE)
    if move == "resume":
        today = eastern_now(now).date()
        for index, day in dates_from(locked, locked.next_index, 10_000):
            if day >= today:
                locked.next_index = index
                break
        locked.next_notice_index = max(locked.next_notice_index, locked.next_index)
    schedule_status_write(locked, status=target, at=now, also=("next_index", "next_notice_index"))
    return locked


@transaction.atomic
def schedule_stop(*, schedule: Schedule, reason: str, by: str, now: datetime | None = None) -> bool:
    """Staff stop an active or paused schedule (the payer asked support to end their debits): `stopped` with the
    reason and who, and the merchant hears it as `schedule.stopped`, as when the service stops one. False when it had
    ended already."""
    locked = _locked(schedule)
    if locked.status not in MOVES["cancel"][0]:
        return False
    schedule_status_write(locked, status=Schedule.Status.STOPPED, at=now or timezone.now(), reason=f"{reason} ({by})")
    _announce(locked, EventType.SCHEDULE_STOPPED)
    return True


@dataclass
class RunSummary:
    debits: int = 0
    notices: int = 0
    stopped: int = 0
    completed: int = 0
    refused: list[dict] = field(default_factory=list)
    held: list[dict] = field(default_factory=list)  # the debits it made HELD, each with its hold's code and reason

    def as_json(self) -> dict:
        return {
            "debits": self.debits,
            "notices": self.notices,
            "stopped": self.stopped,
            "completed": self.completed,
            "refused": self.refused,
            "held": self.held,
        }


def _end(schedule: Schedule, status: str, reason: str, at: datetime, summary: RunSummary) -> None:
    schedule_status_write(schedule, status=status, at=at, reason=reason)
    if status == Schedule.Status.STOPPED:
        summary.stopped += 1
        _announce(schedule, EventType.SCHEDULE_STOPPED)
    else:
        summary.completed += 1
        _announce(schedule, EventType.SCHEDULE_COMPLETED)


def _stop_reason(schedule: Schedule) -> str:
    if schedule.mandate.status != Mandate.Status.ACTIVE:
        return f"mandate revoked: {schedule.mandate.revoked_reason}"
    if schedule.payment_method.blocked_at is not None:
        return f"payment method blocked: {schedule.payment_method.blocked_reason}"
    if schedule.payment_method.deleted_at is not None:
        return "payment method deleted"
    return ""


def _representment_days(schedule: Schedule) -> set[date]:
    """The days on which a re-presentment of one of the schedule's returned debits goes out (made and unsent, or
    scheduled): an installment is kept off them, so the payer is not debited twice in a day (ACH review M1)."""
    returned = ScheduledDebit.objects.filter(schedule=schedule, transaction__status=Status.RETURNED).values(
        "transaction_id"
    )
    made = Transaction.objects.filter(
        company_id=schedule.company_id, retry_of_id__in=returned, status__in=(Status.PENDING, Status.HELD)
    ).values_list("effective_date", flat=True)
    scheduled = RetryAttempt.objects.filter(
        company_id=schedule.company_id, original_id__in=returned, state=RetryAttempt.State.SCHEDULED
    ).values_list("scheduled_for", flat=True)
    return {*made, *scheduled}


def installment_date(schedule: Schedule, day: date, *, at: datetime) -> date:
    """The effective date of the installment of `day`: not before today, and not on a re-presentment's day (the next
    banking day instead)."""
    effective = max(day, eastern_now(at).date())
    busy = _representment_days(schedule)
    while effective in busy:
        effective = next_business_day(effective, include_today=False)
    return effective


def _debit(schedule: Schedule, day: date, *, at: datetime, summary: RunSummary) -> Transaction:
    charge = ChargeRequest(
        company=schedule.company,
        method=ACH.code,
        type=TransactionType.DEBIT,
        amount=schedule.amount,
        actor=RUN_ACTOR,
        now=at,
        customer_uuid=schedule.customer.uuid,
        payment_method_uuid=schedule.payment_method.uuid,
        standard_entry_class_code=schedule.mandate.sec_code,
        effective_date=installment_date(schedule, day, at=at),
        mandate_uuid=schedule.mandate.uuid,
        installment=True,
        description=f"schedule {schedule.uuid}",
        retry_policy=schedule.retry_policy,
        purpose=schedule.purpose,
    )
    result = transaction_charge(charge)
    if held := held_line(result.record):
        summary.held.append({**held, "schedule": str(schedule.uuid), "date": day.isoformat()})
    return Transaction.objects.get(company=schedule.company, uuid=result.record["uuid"])


def _schedule_run(schedule: Schedule, *, at: datetime, summary: RunSummary) -> None:
    today = eastern_now(at).date()
    debit_horizon = add_business_days(next_business_day(today), DEBIT_BANKING_DAYS)
    with transaction.atomic():
        locked = _locked(schedule)
        if locked.status != Schedule.Status.ACTIVE:
            return  # a run at the same time did it, or the merchant paused it meanwhile
        locked.company = schedule.company
        reason = _stop_reason(locked)
        if reason:
            _end(locked, Schedule.Status.STOPPED, reason, at, summary)
            return
        for index, day in dates_from(locked, locked.next_notice_index, 10_000):
            if day - timedelta(days=NOTICE_DAYS) > today:
                break
            locked.next_notice_index = index + 1
            if index >= locked.next_index:
                summary.notices += 1
                _announce(locked, EventType.SCHEDULE_PAYMENT_UPCOMING, paymentDate=day.isoformat())
        for index, day in dates_from(locked, locked.next_index, 10_000):
            if day > debit_horizon:
                break
            try:
                with transaction.atomic():
                    txn = _debit(locked, day, at=at, summary=summary)
                    ScheduledDebit.objects.create(company=locked.company, schedule=locked, date=day, transaction=txn)
            except ApiError as refused:
                summary.refused.append({"schedule": str(locked.uuid), "date": day.isoformat(), "code": refused.code})
                locked.save(update_fields=["next_index", "next_notice_index"])
                _end(locked, Schedule.Status.STOPPED, f"debit of {day} refused: {refused.message}", at, summary)
                return
            summary.debits += 1
            locked.next_index = index + 1
        locked.save(update_fields=["next_index", "next_notice_index"])
        if schedule_date(locked, locked.next_index) is None:
            _end(locked, Schedule.Status.COMPLETED, "every date's debit was made", at, summary)


def schedules_run(*, at: datetime, company_ids: list[int] | None = None) -> RunSummary:
    """Every active schedule (of `company_ids`, or all), one after another, each in its own database transaction."""
    summary = RunSummary()
    active = Schedule.objects.filter(status=Schedule.Status.ACTIVE).select_related(
        "company", "company__merchant_settings"
    )
    if company_ids is not None:
        active = active.filter(company_id__in=company_ids)
    for schedule in active.order_by("pk").iterator(chunk_size=500):
        _schedule_run(schedule, at=at, summary=summary)
    return summary


def sandbox_day_schedules_run(*, company_ids: list[int], at: datetime, **_signal) -> RunSummary:
    """The sandbox clock's morning (transactions.sandbox.services.sandbox_day_opens): this company's schedules run
    as `run_schedules` would on that day."""
    return schedules_run(at=at, company_ids=company_ids)
