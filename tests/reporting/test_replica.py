"""With REPORTING_DATABASE_URL set, report queries run on the `reporting` alias (CI runs this file with the alias
pointing at the primary's test database, as a streaming replica would mirror it)."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.db import connections
from django.test.utils import CaptureQueriesContext

from tests.reporting.conftest import build_transaction, ids_of, report

pytestmark = [
    pytest.mark.skipif("reporting" not in settings.DATABASES, reason="REPORTING_DATABASE_URL not set"),
    pytest.mark.django_db(transaction=True, databases=["default", "reporting"]),
]


def _touches_transactions(queries) -> bool:
    return any("transactions_transaction" in query["sql"] for query in queries)


def test_report_reads_from_the_reporting_alias(api_client, company):
    txn = build_transaction(company, amount=4321)
    with (
        CaptureQueriesContext(connections["reporting"]) as replica,
        CaptureQueriesContext(connections["default"]) as primary,
    ):
        response = report(api_client, amount="4321")
        csv_body = b"".join(report(api_client, format="csv").streaming_content).decode()
    assert ids_of(response) == {txn.pk}
    assert str(txn.uuid) in csv_body
    assert _touches_transactions(replica.captured_queries)
    assert not _touches_transactions(primary.captured_queries)
