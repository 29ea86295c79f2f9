"""Citus readiness (CONTRACT 8), read from the migrated schema: every merchant-owned table carries company_id, and
every unique constraint or primary key of one includes it. docs/scale-out.md gives the distribution plan.

Global tables are listed here by name (docs/scale-out.md: reference tables, Django plumbing, and the company table
that is the distribution key itself); every other table is merchant-owned. The unique indexes that do not include
company_id yet are listed too, each to be rebuilt with company_id before distributing (docs/scale-out.md, step 1):
the test fails on any other one, so no new gap gets in, and on a listed one that is gone, so the list only shrinks."""

from __future__ import annotations

import pytest
from django.db import connection

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

GLOBAL_TABLES = {
    "accounts_company",  # the distribution key: create_distributed_table('accounts_company', 'id')
    "accounts_actiongroup", "accounts_role",  # reference data
    "accounts_user", "accounts_user_groups", "accounts_user_user_permissions",  # users log in before a company
    "accounts_loginthrottle", "token_blacklist_outstandingtoken", "token_blacklist_blacklistedtoken",  # login
    "transactions_originationfile", "transactions_ingestionfile",  # one NACHA file spans many merchants
    "auth_group", "auth_group_permissions", "auth_permission", "django_admin_log", "django_content_type",
    "django_migrations", "django_session", "vault_cache",
    "django_tasks_database_dbtaskresult",  # the task queue: plumbing, a local table on the coordinator
}  # fmt: skip

KNOWN_GAPS = {
    # Surrogate primary keys: become PRIMARY KEY (company_id, id).
    *((table, "id") for table in (
        "accounts_apikey", "accounts_membership", "customers_customer", "payments_paymentmethod",
        "reporting_payername", "reporting_transactioncount", "transactions_batch", "transactions_changenotice",
        "transactions_idempotencyrecord", "transactions_settlement", "transactions_transaction",
        "transactions_transactionexception", "transactions_transactionhold", "transactions_transactionreturn",
        "events_event", "events_objectsequence", "events_webhookendpoint", "events_delivery",
        "events_deliveryattempt", "reporting_csvexportlease", "transactions_transactionevent",
        "transactions_debithold", "transactions_returnpolicy", "transactions_riskaction", "transactions_riskalert",
        "transactions_riskreview", "transactions_accountvalidation",
    )),
    ("customers_historicalcustomer", "history_id"),
    # Public UUIDs: become UNIQUE (company_id, uuid) (every lookup is already scoped to the company).
    *((table, "uuid") for table in (
        "customers_customer", "payments_paymentmethod", "transactions_batch", "transactions_changenotice",
        "transactions_settlement", "transactions_transaction", "transactions_transactionreturn",
        "transactions_riskalert", "transactions_accountvalidation",
    )),
    # One-to-one lifecycle rows: become UNIQUE (company_id, transaction_id).
    *((table, "transaction_id") for table in (
        "transactions_changenotice", "transactions_transactionexception", "transactions_transactionhold",
        "transactions_transactionreturn",
    )),
    # Trace numbers are unique per ODFI and day across merchants (one NACHA file): becomes (company_id, ...) once
    # trace numbers are allotted per company, or stays checked by the origination step.
    ("transactions_transaction", "trace_date,trace_number"),
    ("accounts_apikey", "prefix"),  # authentication finds a key by prefix before it knows the company
}  # fmt: skip


def _tables() -> dict[str, set[str]]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.relname, a.attname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped "
            "WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p')"
        )
        tables: dict[str, set[str]] = {}
        for table, column in cursor.fetchall():
            tables.setdefault(table, set()).add(column)
    return tables


def _unique_indexes() -> list[tuple[str, str, tuple[str, ...]]]:
    """(table, index, key columns) of every primary key, unique constraint and unique index."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT t.relname, i.relname, array_agg(a.attname ORDER BY a.attname) "
            "FROM pg_index x JOIN pg_class t ON t.oid = x.indrelid JOIN pg_class i ON i.oid = x.indexrelid "
            "JOIN pg_namespace n ON n.oid = t.relnamespace "
            "LEFT JOIN LATERAL unnest(x.indkey) AS k(attnum) ON true "
            "LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum "
            "WHERE n.nspname = current_schema() AND x.indisunique GROUP BY t.relname, i.relname"
        )
        return [(table, index, tuple(c for c in columns if c)) for table, index, columns in cursor.fetchall()]


def _merchant_tables() -> dict[str, set[str]]:
    return {table: columns for table, columns in _tables().items() if table not in GLOBAL_TABLES}


def test_every_merchant_owned_table_carries_company_id():
    lacking = sorted(table for table, columns in _merchant_tables().items() if "company_id" not in columns)
    assert lacking == [], f"merchant-owned tables without company_id (or add them to GLOBAL_TABLES): {lacking}"


def test_global_tables_are_still_there():
    assert GLOBAL_TABLES <= set(_tables())


def test_unique_constraints_of_merchant_owned_tables_include_company_id():
    merchant = _merchant_tables()
    gaps = {
        (table, ",".join(columns))
        for table, _, columns in _unique_indexes()
        if table in merchant and "company_id" not in columns
    }
    new = sorted(gaps - KNOWN_GAPS)
    assert new == [], f"unique constraints or primary keys without company_id: {new}"
    closed = sorted(KNOWN_GAPS - gaps)
    assert closed == [], f"closed gaps still listed in KNOWN_GAPS (remove them): {closed}"
