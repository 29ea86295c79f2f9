"""On PostgreSQL the lifecycle commands' events carry a record the server renders (transactions.records.RECORD_SQL),
not transaction_record's: a webhook must read the same, key for key, whichever wrote it, for every kind of
transaction and every key the record can carry."""

import uuid
from datetime import date, datetime, timedelta

import pytest
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from events.models import Event, ObjectSequence
from schedules.models import ScheduledDebit
from tests import factories
from tests.reporting.conftest import _schedule
from transactions.events import transactions_event
from transactions.models import AccountValidation, RetryAttempt, Transaction, TransactionHold, TransactionReturn
from transactions.records import transaction_record

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]


def every_kind_of_transaction(company) -> list[Transaction]:
    customer = factories.CustomerFactory(company=company)
    method = factories.PaymentMethodFactory(customer=customer)
    validation = AccountValidation.objects.create(
        company=company, payment_method=method, kind="micro", effective_date=date(2026, 11, 10)
    )
    moment = datetime(2026, 11, 12, 14, 0, 0, 5, tzinfo=timezone.get_fixed_timezone(-300))
    make = factories.TransactionFactory
    plain = make(company=company, effective_date=date(999, 1, 2), created_at=moment)
    saved = make(
        company=company,
        customer=customer,
        payment_method=method,
        type="Credit",
        standard_entry_class_code="",
        external_unique_id="ext-1",
        idempotency_key="key-1",
        description='O\'Brien "rent" \\ é',
        entry_description="PAYROLL",
        purpose="rent",
        is_same_day=True,
    )
    returned = make(company=company, status="Returned", trace_number="021000020000001", failure_reason="R01")
    TransactionReturn.objects.create(
        company=company, transaction=returned, return_code="R01", return_reason="Insufficient Funds", returned_at=moment
    )
    coded_without_row = make(company=company, status="Returned", return_code="R02")
    refund = make(company=company, refund_of=saved, type="Credit", entry_description="REFUND")
    card = make(
        company=company,
        method="CRD",
        card_masked="411111******1111",
        card_first_six="411111",
        card_last_four="1111",
        card_expiration="12/29",
        authorized_at=moment,
        auth_response_code="00",
    )
    card_unauthorized = make(company=company, method="CRD", card_masked="5555********4444")
    micro = make(company=company, amount=7, account_validation=validation)
    prenote = make(company=company, amount=0, account_validation=validation)
    voided = make(company=company, status="Voided", voided_at=moment, reversal_uuid=uuid.uuid4(), reversed_at=moment)
    rtp = make(company=company, method="RTP", rtp_transaction_id="RTP-9", standard_entry_class_code="")
    held = make(company=company, status="HELD", failure_reason="over the limit")
    TransactionHold.objects.create(company=company, transaction=held, hold_code="H1", hold_reason="Over the limit")
    held_without_row = make(company=company, status="HELD")
    kinds = [plain, saved, returned, coded_without_row, refund, card, card_unauthorized, micro, prenote, voided, rtp]
    return [
        *kinds,
        held,
        held_without_row,
        *_retried_and_final(company, moment),
        *under_mandates(company),
        *re_presented(company),
    ]


def re_presented(company) -> list[Transaction]:
    """CONTRACT 15 (2026-12-07): a first presentment returned and re-presented, its re-presentment returned and
    re-presented again: each names the first in `retryOf`, each return names its own re-presentment."""
    make = factories.TransactionFactory
    first = make(company=company, status="Returned")
    again = make(company=company, status="Returned", retry_of=first, entry_description="RETRY PYMT")
    last = make(company=company, retry_of=first, entry_description="RETRY PYMT")
    for returned, code in ((first, "R01"), (again, "R09")):
        TransactionReturn.objects.create(
            company=company,
            transaction=returned,
            return_code=code,
            return_reason="Insufficient Funds",
            returned_at=timezone.now(),
        )
    return [first, again, last]


def under_mandates(company) -> list[Transaction]:
    """CONTRACT 14: a debit under a mandate, and one a schedule made (its link is the schedule's row)."""
    schedule = _schedule(company)
    make = factories.TransactionFactory
    by_hand = make(company=company, mandate=schedule.mandate)
    scheduled = make(company=company, mandate=schedule.mandate)
    ScheduledDebit.objects.create(company=company, schedule=schedule, date=date(2026, 2, 2), transaction=scheduled)
    return [by_hand, scheduled]


def _retried_and_final(company, moment) -> list[Transaction]:
    """CONTRACT 15: a returned debit with its scheduled attempt, one whose attempt was cancelled, a final debit
    returned after it was final, a settled RTP payment, a charge that opted out of retries."""
    make = factories.TransactionFactory
    kinds = []
    for status, reason in (("scheduled", ""), ("cancelled", "method_blocked")):
        txn = make(company=company, status="Returned", return_code="R01", finality="pending", retry_policy=None)
        RetryAttempt.objects.create(
            company=company,
            original=txn,
            returned=txn,
            number=1,
            scheduled_for=date(2026, 12, 1),
            state=status,
            reason=reason,
        )
        kinds.append(txn)
    final = make(
        company=company,
        status="Returned",
        return_code="R10",
        finality="final",
        returns_due_by=date(2026, 9, 3),
        unauthorized_returns_due_by=date(2026, 11, 2),
        funds_available_at=moment,
        final_at=moment,
    )
    rtp = make(company=company, method="RTP", status="Settled", standard_entry_class_code="")
    opted_out = make(company=company, retry_policy="none", finality="pending")
    return [*kinds, final, rtp, opted_out]


def fresh(pk: int) -> Transaction:
    return Transaction.objects.select_related("customer", "payment_method", "refund_of", "return_entry").get(pk=pk)


def test_the_server_renders_the_record_transaction_record_renders():
    company = factories.CompanyFactory()
    txns = every_kind_of_transaction(company)
    factories.TransactionFactory(company=factories.CompanyFactory())  # another tenant's row is not read

    transactions_event([txn.pk for txn in reversed(txns)], "transaction.updated")

    events = list(Event.objects.filter(type="transaction.updated").order_by("id"))
    assert [event.object_uuid for event in events] == [txn.uuid for txn in txns]  # id order, whatever was passed
    for txn, event in zip(txns, events, strict=True):
        assert event.data == transaction_record(fresh(txn.pk)), txn.status
        assert event.company_id == company.pk
    assert {key for event in events for key in event.data} >= {"holdCode", "authorizedAt", "returnCode"}


def test_server_rendered_events_are_numbered_after_the_objects_earlier_events():
    company = factories.CompanyFactory()
    first, second = factories.TransactionFactory(company=company), factories.TransactionFactory(company=company)
    ObjectSequence.objects.create(company=company, object_uuid=first.uuid, last_sequence=4)

    transactions_event([first.pk, second.pk], "transaction.originated")
    transactions_event([first.pk], "transaction.settled")

    sequences = {(event.object_uuid, event.type): event.sequence for event in Event.objects.filter(company=company)}
    assert sequences == {
        (first.uuid, "transaction.originated"): 5,
        (second.uuid, "transaction.originated"): 1,
        (first.uuid, "transaction.settled"): 6,
    }
    assert Event.objects.filter(company=company, fanout_pending=True).count() == 0
    assert all(
        event.created_at > timezone.now() - timedelta(minutes=1) for event in Event.objects.filter(company=company)
    )


TEXTS = st.text(st.characters(exclude_categories=("Cs",), exclude_characters="\x00"), max_size=20)


@settings(max_examples=30, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    description=TEXTS,
    name=TEXTS,
    external_unique_id=TEXTS,
    amount=st.integers(1, 99_999_999),
    status=st.sampled_from(["Pending", "Processing", "Settled", "Voided", "Rejected", "DECLINED"]),
    method=st.sampled_from(["ACH", "RCC", "RTP"]),
    created_at=st.datetimes(
        min_value=datetime(1000, 1, 1),
        max_value=datetime(9000, 1, 1),
        timezones=st.just(timezone.get_fixed_timezone(-300)),
    ),
)
def test_any_values_render_alike_on_the_server_and_in_python(created_at, **values):
    """Any text (quotes, backslashes, any script, control characters), amount and moment reads the same whichever
    form wrote the record."""
    company = factories.CompanyFactory()
    txn = factories.TransactionFactory(company=company, created_at=created_at, **values)

    transactions_event([txn.pk], "transaction.updated")

    event = Event.objects.filter(type="transaction.updated", object_uuid=txn.uuid).get()
    assert event.data == transaction_record(fresh(txn.pk))
