"""Builders for reporting tests: a transaction with any registry path set, related rows created as needed."""

from __future__ import annotations

import itertools
import uuid
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest

from mandates.models import Mandate
from payments.models import PaymentMethod
from schedules.models import ScheduledDebit
from tests import factories
from transactions.models import (
    Batch,
    ChangeNotice,
    IngestionFile,
    Settlement,
    Transaction,
    TransactionException,
    TransactionHold,
    TransactionReturn,
)
from vault import crypto

URL = "/reporting/transactions"
FORWARD = {
    "batch": Batch,
    "settlement": Settlement,
    "late_return_settlement": Settlement,
    "ingestion_file": IngestionFile,
    "payment_method": PaymentMethod,
    "mandate": Mandate,
    "retry_of": Transaction,
}
REVERSE = {
    "scheduled_debit": ScheduledDebit,
    "return_entry": TransactionReturn,
    "change_notice": ChangeNotice,
    "hold": TransactionHold,
    "exception": TransactionException,
}
BASE_TIME = datetime(2026, 1, 10, 10, 0, tzinfo=UTC)
_days = itertools.count()


def _related_defaults(model: type, company: Any) -> dict[str, Any]:
    if model is Batch:
        return {"company": company, "standard_entry_class_code": "WEB", "effective_date": date(2026, 1, 12)}
    if model is Settlement:
        return {"company": company, "settlement_date": date(2020, 1, 1) + timedelta(days=next(_days))}
    if model is PaymentMethod:
        customer = factories.CustomerFactory(company=company)
        return {
            "company": company,
            "customer": customer,
            "account_type": "Checking",
            "account_number": "123456789",
            "account_hash": crypto.account_pair_hash("021000021", "123456789"),
            "account_number_hash": crypto.account_number_hash("123456789"),
            "routing_number": "021000021",
        }
    if model is Mandate:
        method = PaymentMethod.objects.create(**_related_defaults(PaymentMethod, company))
        return {
            "company": company,
            "customer": method.customer,
            "payment_method": method,
            "sec_code": "WEB",
            "type": "recurring",
            "channel": "paper",
            "accepted_at": BASE_TIME,
            "text": "I authorize it.",
            "text_sha256": "0" * 64,
        }
    if model is ScheduledDebit:
        return {"company": company, "date": date(2026, 1, 12)}
    if model is IngestionFile:
        return {"filename": "returns.ach", "sha256": uuid.uuid4().hex * 2, "file_format": "nacha"}
    if model is TransactionReturn:
        return {
            "company": company,
            "return_code": "R01",
            "return_reason": "Insufficient Funds",
            "returned_at": BASE_TIME,
        }
    if model is ChangeNotice:
        return {
            "company": company,
            "change_code": "C01",
            "change_reason": "Incorrect bank account number",
            "changed_at": BASE_TIME,
            "noc_received_at": BASE_TIME,
            "old_value": {"accountNumber": "****1111"},
            "new_value": {"accountNumber": "****2222"},
        }
    if model is TransactionHold:
        return {"company": company, "hold_code": "AMT", "hold_reason": "Amount over the hold limit"}
    return {"company": company}


def build_transaction(company: Any, values: dict[str, Any] | None = None, **txn_fields: Any) -> Transaction:
    """A transaction of `company`; `values` maps registry ORM paths to values (related rows created on demand).
    A forward relation path whose value is the related id (`batch_id`, `batch__id`) just creates the row."""
    forward: dict[str, dict[str, Any]] = {}
    reverse: dict[str, dict[str, Any]] = {}
    for path, value in (values or {}).items():
        if path.endswith("_id") and path[: -len("_id")] in FORWARD:
            forward.setdefault(path[: -len("_id")], {})
            continue
        relation, sep, attr = path.partition("__")
        if not sep:
            txn_fields[path] = value
        elif relation in FORWARD:
            forward.setdefault(relation, {})
            if attr != "id":
                forward[relation][attr] = value
        else:
            reverse.setdefault(relation, {})
            if attr != "id":
                reverse[relation][attr] = value
    for relation, attrs in forward.items():
        model = FORWARD[relation]
        defaults = _related_defaults(model, company)
        if relation == "late_return_settlement":
            defaults["kind"] = Settlement.Kind.LATE_RETURN
        if model is Transaction:
            # A first presentment (retry_of), of the same company as the database's key requires; `ids_of` leaves
            # such rows out, as the tables count only the rows they build.
            txn_fields[relation] = factories.TransactionFactory(company=company, **attrs)
            continue
        txn_fields[relation] = model.objects.create(**{**defaults, **attrs})
    txn = factories.TransactionFactory(company=company, **txn_fields)
    for relation, attrs in reverse.items():
        model = REVERSE[relation]
        if model is ScheduledDebit:  # the path goes on to the schedule: scheduled_debit__schedule__uuid
            attrs = {"schedule": _schedule(company, **{key.split("__")[1]: value for key, value in attrs.items()})}
        model.objects.create(transaction=txn, **{**_related_defaults(model, company), **attrs})
    return txn


def _schedule(company: Any, **fields: Any) -> Any:
    mandate = Mandate.objects.create(**_related_defaults(Mandate, company))
    return mandate.schedules.create(
        company=company,
        customer=mandate.customer,
        payment_method=mandate.payment_method,
        amount=100,
        interval="monthly",
        start_date=date(2026, 1, 12),
        **fields,
    )


def report(client: Any, **params: Any) -> Any:
    params.setdefault("page", 0)
    params.setdefault("pageSize", 1000)
    return client.get(URL, {key: value for key, value in params.items() if value is not None})


def ids_of(response: Any) -> set[int]:
    """The rows a report answered, less the first presentments `build_transaction` made for a `retry_of` path."""
    assert response.status_code == 200, response.content
    first_presentments = set(Transaction.objects.filter(retries__isnull=False).values_list("pk", flat=True))
    return {row["numericId"] for row in response.json()["data"]} - first_presentments


@pytest.fixture
def build(company):
    def make(values: dict[str, Any] | None = None, **fields: Any) -> Transaction:
        return build_transaction(company, values, **fields)

    return make
