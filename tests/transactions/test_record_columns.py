"""The lifecycle commands announce tens of thousands of rows read as plain values (transactions.events): each event
must carry the record GET /transactions/{uuid} shows, and reading them must not cost a query per row (a column
transaction_record reads that RECORD_COLUMNS does not list would)."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from tests import factories
from tests.transactions.test_record_sql import re_presented, under_mandates
from transactions.events import _record_rows
from transactions.models import Transaction, TransactionReturn
from transactions.records import transaction_record

pytestmark = pytest.mark.django_db


def test_bulk_events_carry_the_record_the_route_shows():
    company = factories.CompanyFactory()
    customer = factories.CustomerFactory(company=company)
    method = factories.PaymentMethodFactory(customer=customer)
    plain = factories.TransactionFactory(company=company)
    saved = factories.TransactionFactory(company=company, customer=customer, payment_method=method, type="Credit")
    returned = factories.TransactionFactory(company=company, status="Returned", trace_number="021000020000001")
    TransactionReturn.objects.create(
        company=company,
        transaction=returned,
        return_code="R01",
        return_reason="Insufficient Funds",
        returned_at=timezone.now(),
    )
    refund = factories.TransactionFactory(company=company, refund_of=saved, type="Credit", entry_description="REFUND")
    card = factories.TransactionFactory(company=company, method="CRD", card_masked="411111******1111")
    ids = [plain.pk, saved.pk, returned.pk, refund.pk, card.pk, *(txn.pk for txn in under_mandates(company))]
    ids += [txn.pk for txn in re_presented(company)]

    with CaptureQueriesContext(connection) as queries:
        light = [transaction_record(txn) for txn in _record_rows(ids)]

    assert len(queries) == 1
    rows = Transaction.objects.filter(pk__in=ids).select_related(
        "customer", "payment_method", "refund_of", "return_entry"
    )
    assert light == [transaction_record(txn) for txn in rows.order_by("pk")]
