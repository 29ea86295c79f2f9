"""What return rates leave out (review d-9): R61-R77 (dishonored and contested dishonored returns, also an older
row that booked one as a return) and any DishonoredReturn record; prenotes, which move no money, count neither as
debits nor, returned, as returns. Micro-entry debits are real debits and count."""

from __future__ import annotations

from datetime import date

import pytest
from django.db.models import F

from accounts.models import Company
from tests import factories
from tests.transactions.risk.test_return_rates import URL, at, counts, originated_file, returned
from transactions.models import AccountValidation, Batch, DishonoredReturn, IngestionFile, TransactionReturn
from transactions.risk.return_rates import current_rate_annotations

pytestmark = pytest.mark.django_db


@pytest.fixture
def history(company):
    """Nov 10: 4 WEB debits and a prenote in one file. Returns: R01 on the first (later dishonored R68 and
    contested R73), an R61 booked as a return on the second (a row from before dishonors had their own records),
    R03 on the prenote."""
    debits = originated_file(company, "2026-11-10T15:00:00", {("ACH", "WEB", "Debit"): 4}, "A")[("ACH", "WEB", "Debit")]
    method = factories.PaymentMethodFactory(customer=factories.CustomerFactory(company=company))
    validation = AccountValidation.objects.create(
        company=company, payment_method=method, kind="prenote", effective_date=date(2026, 11, 10)
    )
    prenote = factories.TransactionFactory(
        company=company,
        amount=0,
        account_validation=validation,
        status="Processing",
        batch=debits[0].batch,
        effective_date=date(2026, 11, 10),
    )
    Batch.objects.filter(pk=prenote.batch_id).update(entry_count=F("entry_count") + 1)  # as originate counts it
    returned(debits[0], "R01", "2026-11-12T14:00:00")
    returned(debits[1], "R61", "2026-11-12T14:00:00")
    returned(prenote, "R03", "2026-11-12T14:00:00")
    ingestion = IngestionFile.objects.create(filename="d.ach", sha256="0" * 64, file_format="nacha")
    answered = TransactionReturn.objects.get(transaction=debits[0])
    for kind, code in (("dishonored", "R68"), ("contested", "R73")):
        DishonoredReturn.objects.create(
            company=company,
            kind=kind,
            transaction=debits[0],
            transaction_return=answered,
            code=code,
            reason=code,
            received_at=at("2026-11-13T14:00:00"),
            ingestion_file=ingestion,
        )


@pytest.mark.parametrize("method", ["period", "files"])
def test_dishonors_and_prenotes_are_left_out(api_client, history, method):
    response = api_client.get(URL, {"asOf": "2026-11-30", "method": method})
    assert response.status_code == 200, response.content
    data = response.json()["data"]
    assert data["debits"] == 4
    assert {category: data[category]["returns"] for category in counts(0, 0, 0)} == counts(0, 0, 1)
    assert data["bySecCode"]["WEB"]["overall"] == {"returns": 1, "rate": 0.25, "threshold": 0.15}


def test_the_admin_company_list_leaves_them_out_too(company, history):
    annotated = Company.objects.filter(pk=company.pk).annotate(**current_rate_annotations(today=date(2026, 11, 30)))
    row = annotated.get()
    assert (row.overall_rate, row.administrative_rate, row.unauthorized_rate) == (0.25, 0.0, 0.0)
