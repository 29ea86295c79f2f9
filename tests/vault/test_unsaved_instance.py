"""vault.db.unsaved_instance makes the instance the model makes (what is not given takes the fields' defaults), so the
rows a hot path inserts from it are the rows the ORM's instances give."""

from __future__ import annotations

import pytest
from django.utils import timezone

from tests import factories
from transactions.models import IngestionFile, TransactionReturn
from vault.db import rows_insert, unsaved_instance

pytestmark = pytest.mark.django_db

COLUMNS = [field.attname for field in TransactionReturn._meta.concrete_fields if field.attname not in ("id", "uuid")]


def test_an_unsaved_instance_is_the_row_the_model_makes(company):
    now = timezone.now()
    ingestion = IngestionFile.objects.create(filename="r.ach", sha256="b" * 64, file_format="nacha", received_at=now)
    txn = factories.TransactionFactory(company=company)
    values = {"company_id": company.pk, "return_code": "R01", "return_reason": "Insufficient Funds", "returned_at": now}
    by_model = TransactionReturn(transaction_id=txn.pk, ingestion_file_id=ingestion.pk, **values)
    by_state = unsaved_instance(TransactionReturn, transaction_id=txn.pk, ingestion_file_id=ingestion.pk, **values)
    assert by_state._state.adding and by_state.pk is None and by_state.uuid != by_model.uuid
    rows_insert(TransactionReturn, [by_state])
    stored = TransactionReturn.objects.filter(pk=by_state.pk).values(*COLUMNS).get()
    assert stored == {name: getattr(by_model, name) for name in COLUMNS}
