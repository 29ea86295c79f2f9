"""Automatic re-presentment (CONTRACT 15): an R01/R09 return under an enabled policy schedules the next attempt,
`run_retries` makes it through the manual route's own function (count of 2, 180-day limit, RETRY PYMT batch), and
every reason an attempt is cancelled."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
import time_machine
from django.utils import timezone

from events.account_changes import company_suspend
from events.models import Event
from mandates.models import Mandate
from tests import factories
from tests.mandates.conftest import mandate_created
from tests.transactions.ach import nacha_reader
from tests.transactions.ach.conftest import MONDAY_MORNING, run, saved_method_txn
from tests.transactions.risk.test_retry import returned_debit
from transactions.charges.retry_attempts import retries_run, retries_schedule
from transactions.models import AccountBlock, RetryAttempt, RetryPolicy, Transaction, TransactionReturn
from transactions.sandbox.bank_files import return_file_for

pytestmark = pytest.mark.django_db
TUESDAY = datetime(2026, 12, 8, 15, tzinfo=UTC)


@pytest.fixture
def method(company):
    # One return of one debit is a 100% rate: this company's policy alerts without holding its debits.
    company.merchant_settings.hold_debits_on_breach = False
    company.merchant_settings.save(update_fields=["hold_debits_on_breach"])
    customer = factories.CustomerFactory(company=company)
    return factories.PaymentMethodFactory(
        customer=customer, account_number="000123456789", routing_number="021000021", account_type="Checking"
    )


def policy_on(company, attempts: int = 2, **schedule) -> RetryPolicy:
    schedule = schedule or {"schedule_type": "after_banking_days", "banking_days": 2}
    return RetryPolicy.objects.create(company=company, enabled=True, attempts=attempts, **schedule)


def returned_through_a_file(txn: Transaction, code: str, at: datetime, tmp_path) -> None:
    path = tmp_path / f"returns-{txn.pk}-{at:%Y%m%d%H%M}.ach"
    path.write_text(return_file_for([(txn, code, {})], at=at))
    assert run("import_returns", str(path), "--at", at.isoformat())["returns"] == 1


def schedule(txns: list[Transaction], *, at: datetime) -> None:
    """What import_returns does for a chunk's returns: schedule, then announce."""
    retries_schedule(txns, at=at).send()


def events_of(txn: Transaction) -> list[Event]:
    return list(Event.objects.filter(object_uuid=txn.uuid).order_by("sequence"))


def test_an_r01_is_scheduled_made_by_run_retries_and_read_back_from_the_nacha_file(api_client, method, tmp_path):
    policy_on(method.company)
    original = saved_method_txn(method, amount=4321)
    run("originate", "--at", MONDAY_MORNING)
    original.refresh_from_db()

    returned_through_a_file(original, "R01", TUESDAY, tmp_path)

    retry = {
        "willAttemptRetry": True,
        "scheduledFor": "2026-12-10",
        "attempt": 1,
        "status": "scheduled",
        "reason": None,
        "transactionUuid": None,
    }
    assert api_client.get(f"/transactions/{original.uuid}").json()["data"]["retry"] == retry
    types = [(event.type, event.data["retry"]) for event in events_of(original)][-2:]
    assert types == [("transaction.returned", retry), ("transaction.retry_scheduled", retry)]

    assert run("run_retries", "--at", "2026-12-09T14:00:00Z") == {
        "created": 0,
        "cancelled": 0,
        "skipped": 0,
        "held": [],
    }
    assert run("run_retries", "--at", "2026-12-10T14:00:00Z")["created"] == 1
    assert run("run_retries", "--at", "2026-12-10T14:30:00Z")["created"] == 0  # rerun: nothing twice
    (attempt,) = original.retries.all()
    assert (attempt.status, attempt.amount, attempt.entry_description) == ("Pending", 4321, "RETRY PYMT")
    made = api_client.get(f"/transactions/{original.uuid}").json()["data"]["retry"]
    assert (made["status"], made["transactionUuid"]) == ("created", str(attempt.uuid))
    assert api_client.get(f"/transactions/{attempt.uuid}").json()["data"]["retryOf"] == str(original.uuid)

    summary = run("originate", "--at", "2026-12-10T15:00:00Z")
    (text,) = [open(name).read() for name in summary["files"]]
    (batch,) = nacha_reader.read(text).batches
    assert batch.description == "RETRY PYMT"
    (entry,) = batch.entries
    assert (entry.amount, entry.account.strip()) == (4321, "000123456789")
    attempt.refresh_from_db()
    assert entry.trace == attempt.trace_number


def test_without_a_policy_an_r01_says_no_retry_will_be_attempted(api_client, method, tmp_path):
    original = saved_method_txn(method)
    run("originate", "--at", MONDAY_MORNING)
    original.refresh_from_db()

    returned_through_a_file(original, "R01", TUESDAY, tmp_path)

    record = api_client.get(f"/transactions/{original.uuid}").json()["data"]
    assert record["retry"]["willAttemptRetry"] is False
    assert not RetryAttempt.objects.exists()
    assert events_of(original)[-1].type == "transaction.returned"


def returned(method, code: str = "R01", **overrides) -> Transaction:
    """A debit returned with `code`, read back with the code its return's trigger copied onto it."""
    txn = returned_debit(method, code, **overrides)
    txn.refresh_from_db()
    return txn


@pytest.mark.parametrize("code", ["R02", "R03", "R05", "R07", "R08", "R10", "R16", "R29"])
def test_no_attempt_after_any_code_but_r01_and_r09(method, code):
    policy_on(method.company)
    schedule([returned(method, code)], at=TUESDAY)
    assert not RetryAttempt.objects.exists()


@pytest.mark.parametrize("code", ["R01", "R09"])
def test_r01_and_r09_are_scheduled(method, code):
    policy_on(method.company)
    txn = returned(method, code)
    schedule([txn], at=TUESDAY)
    assert RetryAttempt.objects.get(returned=txn).number == 1


def test_a_charge_that_opted_out_is_never_scheduled(method):
    policy_on(method.company)
    schedule([returned(method, retry_policy="none")], at=TUESDAY)
    assert not RetryAttempt.objects.exists()


def test_a_disabled_policy_schedules_nothing(method):
    policy_on(method.company).__class__.objects.update(enabled=False)
    schedule([returned(method)], at=TUESDAY)
    assert not RetryAttempt.objects.exists()


def test_the_180_day_edge_day_180_is_scheduled_day_181_is_skipped_never_moved_earlier(method):
    # after 2 banking days from Tuesday 2026-12-08 is Thursday 2026-12-10.
    policy_on(method.company)
    on_the_edge = returned(method, effective_date=date(2026, 12, 10) - timedelta(days=180))
    past_it = returned(method, effective_date=date(2026, 12, 10) - timedelta(days=181), amount=1600)

    schedule([on_the_edge, past_it], at=TUESDAY)

    edge = RetryAttempt.objects.get(returned=on_the_edge)
    assert (edge.state, edge.scheduled_for) == ("scheduled", date(2026, 12, 10))
    skipped = RetryAttempt.objects.get(returned=past_it)
    assert (skipped.state, skipped.reason, skipped.scheduled_for) == ("skipped", "window_closed", date(2026, 12, 10))
    assert [event.type for event in events_of(past_it)][-1] == "transaction.retries_exhausted"
    assert run("run_retries", "--at", "2026-12-10T14:00:00Z") == {
        "created": 1,
        "cancelled": 0,
        "skipped": 0,
        "held": [],
    }
    assert on_the_edge.retries.count() == 1 and past_it.retries.count() == 0


def test_the_count_of_two_is_shared_with_the_manual_retry(api_client, method):
    policy_on(method.company, attempts=2)
    original = returned(method)
    manual = api_client.post(f"/transactions/{original.uuid}/retry")
    assert manual.status_code == 201
    first = Transaction.objects.get(uuid=manual.json()["data"]["uuid"])
    first.status, first.return_code = "Returned", "R01"
    first.save(update_fields=["status", "return_code"])
    TransactionReturn.objects.create(
        company=first.company, transaction=first, return_code="R01", return_reason="x", returned_at=timezone.now()
    )

    schedule([first], at=TUESDAY)
    attempt = RetryAttempt.objects.get(returned=first)
    assert (attempt.number, attempt.original_id) == (2, original.pk)  # the manual one was the first
    run("run_retries", "--at", "2026-12-10T14:00:00Z")
    second = Transaction.objects.get(pk=RetryAttempt.objects.get(pk=attempt.pk).presentment_id)
    second.status, second.return_code = "Returned", "R01"
    second.save(update_fields=["status", "return_code"])

    schedule([second], at=TUESDAY + timedelta(days=7))

    assert not RetryAttempt.objects.filter(returned=second).exists()
    assert events_of(second)[-1].type == "transaction.retries_exhausted"
    assert api_client.post(f"/transactions/{second.uuid}/retry").status_code == 409  # the manual route agrees
    assert original.retries.count() == 2


def test_a_policy_of_one_attempt_stops_after_one(method):
    policy_on(method.company, attempts=1)
    original = returned(method)
    schedule([original], at=TUESDAY)
    run("run_retries", "--at", "2026-12-10T14:00:00Z")
    first = original.retries.get()
    first.status, first.return_code = "Returned", "R09"
    first.save(update_fields=["status", "return_code"])

    schedule([first], at=TUESDAY + timedelta(days=7))

    assert not RetryAttempt.objects.filter(returned=first).exists()


def test_a_manual_retry_cancels_the_scheduled_attempt(api_client, method):
    policy_on(method.company)
    original = returned(method)
    schedule([original], at=TUESDAY)

    assert api_client.post(f"/transactions/{original.uuid}/retry").status_code == 201

    attempt = RetryAttempt.objects.get(returned=original)
    assert (attempt.state, attempt.reason) == ("cancelled", "retried_manually")
    assert events_of(original)[-1].type == "transaction.retry_cancelled"
    assert run("run_retries", "--at", "2026-12-10T14:00:00Z")["created"] == 0
    assert original.retries.count() == 1


def _block_method(method, original):
    method.blocked_at = timezone.now()
    method.save(update_fields=["blocked_at"])


def _block_account(method, original):
    AccountBlock.objects.create(
        company=method.company,
        account_hash="h",
        account_number_hash=original.account_number_hash,
        routing_number=original.routing_number,
        account_last_four=original.account_last_four,
        return_code="R02",
        transaction=original,
        blocked_at=timezone.now(),
    )


def _refund(method, original):
    factories.TransactionFactory(company=method.company, type="Credit", refund_of=original, status="Processing")


def _reverse(method, original):
    original.reversed_at = timezone.now()
    original.save(update_fields=["reversed_at"])


def _suspend(method, original):
    company_suspend(company=method.company, reason="fraud review")


@pytest.mark.parametrize(
    ("act", "reason"),
    [
        (_block_method, "method_blocked"),
        (_block_account, "account_blocked"),
        (_refund, "original_refunded"),
        (_reverse, "original_reversed"),
        (_suspend, "company_suspended"),
    ],
)
def test_each_cancellation_reason(method, act, reason):
    policy_on(method.company)
    original = returned(method)
    schedule([original], at=TUESDAY)

    act(method, original)
    result = run("run_retries", "--at", "2026-12-09T14:00:00Z")  # before its day: cancelled the day it is seen

    assert result == {"created": 0, "cancelled": 1, "skipped": 0, "held": []}
    attempt = RetryAttempt.objects.get(returned=original)
    assert (attempt.state, attempt.reason) == ("cancelled", reason)
    event = events_of(original)[-1]
    assert event.type == "transaction.retry_cancelled"
    assert event.data["retry"] == {
        "willAttemptRetry": False,
        "scheduledFor": "2026-12-10",
        "attempt": 1,
        "status": "cancelled",
        "reason": reason,
        "transactionUuid": None,
    }
    assert run("run_retries", "--at", "2026-12-10T14:00:00Z")["created"] == 0
    assert original.retries.count() == 0


def test_a_return_that_finds_the_method_blocked_is_cancelled_at_once(method):
    policy_on(method.company)
    original = returned(method)
    _block_method(method, original)
    original.payment_method.refresh_from_db()

    schedule([original], at=TUESDAY)

    assert RetryAttempt.objects.get(returned=original).state == "cancelled"
    assert events_of(original)[-1].type == "transaction.retry_cancelled"


def test_run_retries_late_past_day_180_skips_what_the_route_refuses(method):
    policy_on(method.company)
    original = returned(method, effective_date=date(2026, 12, 10) - timedelta(days=180))
    schedule([original], at=TUESDAY)

    assert retries_run(at=datetime(2026, 12, 11, 15, tzinfo=UTC)).as_json() == {
        "created": 0,
        "cancelled": 0,
        "skipped": 1,
        "held": [],
    }
    assert RetryAttempt.objects.get(returned=original).reason == "window_closed"


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_run_retries_at_once_make_one_attempt():
    from tests.concurrency import at_once

    company = factories.CompanyFactory()
    company.merchant_settings.hold_debits_on_breach = False
    company.merchant_settings.save(update_fields=["hold_debits_on_breach"])
    method = factories.PaymentMethodFactory(customer=factories.CustomerFactory(company=company))
    policy_on(company)
    originals = [returned(method, amount=1000 + n) for n in range(3)]
    schedule(originals, at=TUESDAY)

    results = at_once(lambda: retries_run(at=datetime(2026, 12, 10, 14, tzinfo=UTC)).created, 2)

    assert sum(results) == 3
    assert [original.retries.count() for original in originals] == [1, 1, 1]
    assert set(RetryAttempt.objects.values_list("state", flat=True)) == {"created"}


def test_a_revoked_mandate_cancels_the_scheduled_attempt(api_client, method):
    policy_on(method.company)
    mandate = Mandate.objects.get(uuid=mandate_created(api_client, method)["mandateUuid"])
    original = returned(method, mandate=mandate)
    schedule([original], at=TUESDAY)

    response = api_client.post(f"/mandates/{mandate.uuid}/revoke", {"reason": "payer asked"}, format="json")
    assert response.status_code == 200, response.content
    # Cancelled by the revocation itself (CONTRACT 14, 2026-12-07), not by the next run.
    assert run("run_retries", "--at", "2026-12-09T14:00:00Z") == {
        "created": 0,
        "cancelled": 0,
        "skipped": 0,
        "held": [],
    }

    retry = {
        "willAttemptRetry": False,
        "scheduledFor": "2026-12-10",
        "attempt": 1,
        "status": "cancelled",
        "reason": "mandate_revoked",
        "transactionUuid": None,
    }
    assert api_client.get(f"/transactions/{original.uuid}").json()["data"]["retry"] == retry
    event = events_of(original)[-1]
    assert (event.type, event.data["retry"]) == ("transaction.retry_cancelled", retry)
    assert run("run_retries", "--at", "2026-12-10T14:00:00Z")["created"] == 0
    assert original.retries.count() == 0


@pytest.mark.parametrize("floor", [None, 4], ids=["default-floor", "floor-of-4"])
def test_a_small_merchants_first_r01_holds_nothing_and_run_retries_names_what_it_made_held(company, tmp_path, floor):
    """Newcomer review 2026-12-07 O4: four debits and one R01 (overall 1/4 over 15%) held every new debit, the
    re-presentment included, and run_retries printed `created: 1` with no word of it. Below
    return_rate_minimum_debits (default 200) a breach holds nothing; at the floor it holds, and run_retries says so."""
    if floor is not None:
        type(company.merchant_settings).objects.filter(pk=company.pk).update(return_rate_minimum_debits=floor)
    customer = factories.CustomerFactory(company=company)
    method = factories.PaymentMethodFactory(
        customer=customer, account_number="000123456789", routing_number="021000021", account_type="Checking"
    )
    policy_on(company)
    with time_machine.travel(datetime(2026, 12, 7, 14, tzinfo=UTC), tick=False):
        debits = [saved_method_txn(method, amount=1000 + n) for n in range(4)]
        run("originate", "--at", MONDAY_MORNING)
    returned_through_a_file(Transaction.objects.get(pk=debits[0].pk), "R01", TUESDAY, tmp_path)

    made = run("run_retries", "--at", "2026-12-10T14:00:00Z")

    retry = debits[0].retries.get()
    if floor is None:
        assert made == {"created": 1, "cancelled": 0, "skipped": 0, "held": []}
        assert retry.status == "Pending"
    else:
        assert retry.status == "HELD"
        (held,) = made["held"]
        assert (held["transaction"], held["holdCode"]) == (str(retry.uuid), "RTN")
        assert "return rate 1/4" in held["holdReason"]
