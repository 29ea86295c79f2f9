"""The daily volume has two forms (transactions.risk.limits): on PostgreSQL the rows the transaction table's triggers
keep (`_volumes_kept`, transactions 0024), elsewhere the sum of the day's entries (`_volumes_summed`). For any
entries, of any status and amount, written on either side of an Eastern midnight, any of them then moved to any
status or deleted, the kept rows add up to the sum, day by day."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests import factories
from transactions.calendar import EASTERN
from transactions.models import AccountValidation, Status, Transaction
from transactions.risk.limits import _volumes_kept, _volumes_summed

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

MIDNIGHT = datetime(2026, 11, 10, tzinfo=EASTERN)  # the first second of an Eastern day
MOMENTS = [
    MIDNIGHT - timedelta(microseconds=1),
    MIDNIGHT,
    MIDNIGHT.replace(hour=19, minute=30),  # after midnight UTC, the same Eastern day
    datetime(2026, 11, 10, 23, 59, 59, tzinfo=UTC),
]
DAYS = sorted({moment.astimezone(EASTERN).date() for moment in MOMENTS})
ENTRIES = st.lists(
    st.fixed_dictionaries(
        {
            "status": st.sampled_from(Status.values),
            "amount": st.sampled_from([1, 1500, 99_999_999]),
            "created_at": st.sampled_from(MOMENTS),
            "validation": st.booleans(),  # a prenote or micro-deposit: never volume
            "then": st.one_of(st.none(), st.just("deleted"), st.sampled_from(Status.values)),
        }
    ),
    min_size=1,
    max_size=6,
)


def _entry(company, validation, entry: dict) -> Transaction:
    return factories.TransactionFactory(
        company=company,
        status=entry["status"],
        amount=entry["amount"],
        created_at=entry["created_at"],
        account_validation=validation if entry["validation"] else None,
    )


def _deleted(pk: int) -> None:
    with connection.cursor() as cursor:  # the trail protects a transaction from the ORM's delete
        cursor.execute("DELETE FROM transactions_transactionevent WHERE transaction_id = %s", [pk])
        cursor.execute("DELETE FROM transactions_transaction WHERE id = %s", [pk])


@settings(max_examples=25, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(entries=ENTRIES)
def test_the_kept_daily_volume_is_the_sum_of_the_days_entries(entries):
    company = factories.CompanyFactory()
    validation = AccountValidation.objects.create(company=company, kind="prenote", effective_date=MIDNIGHT.date())
    for entry in entries:
        txn = _entry(company, validation, entry)
        if entry["then"] == "deleted":
            _deleted(txn.pk)
        elif entry["then"] is not None:
            Transaction.objects.filter(pk=txn.pk).update(status=entry["then"])

    kept = {key: total for key, total in _volumes_kept(DAYS, [company.pk]).items() if total}
    assert kept == {key: total for key, total in _volumes_summed(DAYS, [company.pk]).items() if total}
