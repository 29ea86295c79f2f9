"""Fixtures for the lifecycle tests: commands run as an operator would (the outbound directory and the check of
every file written to it are tests/conftest.py's, for every test)."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import connection

from tests import factories
from transactions.ach.return_files import trace_hash

# Monday 2026-12-07, 10:00 Eastern: before the last same-day window, so the processing day is that Monday.
MONDAY = date(2026, 12, 7)
MONDAY_MORNING = "2026-12-07T15:00:00Z"
MONDAY_SETTLED = "2026-12-07T22:00:01Z"  # just after 17:00 Eastern, the settlement time of that day
# What `settle` adds when no account validation finished and no sandbox entry came back.
NO_VALIDATIONS = {
    "accountValidations": {"validated": 0, "failed": 0},
    "sandbox": {"returns": 0, "notices": 0, "lateReturns": 0},
}


def run(command: str, *args: str) -> dict:
    """Run a management command and parse the one JSON object it prints."""
    out = io.StringIO()
    call_command(command, *args, stdout=out, stderr=io.StringIO())
    text = out.getvalue().strip()
    assert text.count("\n") == 0, text
    return json.loads(text)


@contextmanager
def statements_counted() -> Iterator[list[str]]:
    """The SQL of every statement the default connection runs inside the block, kept whatever runs after it
    (CaptureQueriesContext's list is a slice of Django's query log, which the test client's next request empties)."""
    statements: list[str] = []

    def record(execute, sql, params, many, context):
        statements.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(record):
        yield statements


@pytest.fixture
def customer(company):
    return factories.CustomerFactory(company=company, first_name="Ada", last_name="Lovelace")


@pytest.fixture
def method(customer):
    return factories.PaymentMethodFactory(
        customer=customer, account_number="000123456789", routing_number="021000021", account_type="Checking"
    )


# The entries these helpers make asked for Same Day ACH (CONTRACT 12), so that a file cut on MONDAY_MORNING settles
# at MONDAY_SETTLED; tests of next-day entries say is_same_day=False.
def bank_txn(company, *, effective_date=MONDAY, is_same_day=True, **overrides):
    return factories.TransactionFactory(
        company=company, effective_date=effective_date, is_same_day=is_same_day, **overrides
    )


def saved_method_txn(method, *, effective_date=MONDAY, is_same_day=True, **overrides):
    """A transaction charged from a saved method, its payment details copied as a charge copies them."""
    return factories.TransactionFactory(
        company=method.company,
        is_same_day=is_same_day,
        customer=method.customer,
        payment_method=method,
        effective_date=effective_date,
        name="Ada Lovelace",
        account_type=method.account_type,
        account_number=method.account_number,
        routing_number=method.routing_number,
        **overrides,
    )


CSV_COLUMNS = (
    "record_type,original_trace_number,code,corrected_routing_number,corrected_account_number,corrected_account_type"
)


def return_csv(rows: list[str], *, columns: str = CSV_COLUMNS, count: int | None = None, hash_value: str = "") -> str:
    """A return / NOC CSV as our bank would send it (docs/returns.md, "Return and NOC CSV format"): its file header line
    (from our bank, to us, with the rows' count and trace hash), the column header, the rows."""
    traces = [row.split(",")[1] for row in rows]
    header = ",".join(
        [
            "file_header",
            settings.ACH_IMMEDIATE_ORIGIN,
            settings.ACH_IMMEDIATE_DESTINATION,
            str(len(rows) if count is None else count),
            hash_value or trace_hash(traces),
        ]
    )
    return "\n".join([header, columns, *rows]) + "\n"
