"""A charge whose one write is its row's statement runs without a transaction of its own on PostgreSQL (BEGIN and
COMMIT would be two more round trips); a charge that writes more rows writes them in one transaction."""

from __future__ import annotations

import pytest
from django.db import connection

from tests.transactions.conftest import put_charge, saved_charge
from transactions.models import Status, Transaction, TransactionHold

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def _charge_writes(api_client, body) -> tuple[int, list[tuple[str, bool]]]:
    """The response status and, for each statement that writes a charge's rows, (its table, whether it ran in
    autocommit)."""
    writes = []

    def watch(execute, sql, params, many, context):
        for table in ("transactions_transaction", "transactions_transactionhold"):
            if sql.lstrip().startswith(("INSERT", "WITH")) and f'INTO "{table}"' in sql.split("RETURNING")[0]:
                writes.append((table, connection.get_autocommit()))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(watch):
        response = put_charge(api_client, body)
    return response.status_code, writes


def test_a_charge_of_one_statement_runs_in_autocommit(api_client, customer, saved_method):
    status, writes = _charge_writes(api_client, saved_charge(customer, saved_method))

    assert status == 201
    assert writes == [("transactions_transaction", True)]
    assert Transaction.objects.get().events.count() == 1


def test_a_held_charge_writes_its_row_and_its_hold_in_one_transaction(api_client, company, customer, saved_method):
    company.merchant_settings.hold_over = 10
    company.merchant_settings.save()

    status, writes = _charge_writes(api_client, saved_charge(customer, saved_method, amount=50))

    assert status == 201
    assert writes == [("transactions_transaction", False), ("transactions_transactionhold", False)]
    assert TransactionHold.objects.get().transaction == Transaction.objects.get(status=Status.HELD)


def test_a_charge_whose_risk_locks_the_company_runs_in_a_transaction(api_client, company, customer, saved_method):
    company.merchant_settings.daily_volume_limit = 10**9
    company.merchant_settings.save()

    status, writes = _charge_writes(api_client, saved_charge(customer, saved_method))

    assert status == 201
    assert writes == [("transactions_transaction", False)]


def test_a_saved_method_debit_reads_its_method_and_its_account_rules_in_one_statement(
    api_client, customer, saved_method
):
    """The method, its customer, the account's blocks and returned debits and the company's debit holds: one
    round trip before the insert (transactions.risk.account_rules.saved_account_rows)."""
    statements = []

    def watch(execute, sql, params, many, context):
        statements.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(watch):
        assert put_charge(api_client, saved_charge(customer, saved_method)).status_code == 201

    reads = [sql for sql in statements if '"payments_paymentmethod"' in sql or '"transactions_accountblock"' in sql]
    assert len(reads) == 1 and '"transactions_accountblock"' in reads[0] and '"payments_paymentmethod"' in reads[0]
