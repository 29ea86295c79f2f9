"""Citus readiness (CONTRACT 8), read from the migrated schema: every merchant-owned table carries company_id,
every primary key and unique constraint or index of one includes it, every foreign key between two distributed
tables includes the distribution column on both sides (Citus co-located foreign keys), and no global table holds
a foreign key into a distributed one (Citus refuses reference -> distributed foreign keys). docs/scale-out.md
gives the distribution plan; vault/company_keys.py builds the keys (transactions 0012).

Global tables are listed here by name (docs/scale-out.md: reference tables, Django plumbing, and the company table
that is the distribution key itself); every other table is merchant-owned, distributed by company_id."""

from __future__ import annotations

import pytest
from django.apps import apps
from django.db import IntegrityError, connection, models, transaction

from tests import factories
from vault.company_keys import is_merchant_owned

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

COMPANY_TABLE = "accounts_company"  # distributed by its own id: create_distributed_table('accounts_company', 'id')
GLOBAL_TABLES = {
    COMPANY_TABLE,
    "accounts_actiongroup", "accounts_role",  # reference data
    "accounts_user", "accounts_user_groups", "accounts_user_user_permissions",  # users log in before a company
    "accounts_loginthrottle", "token_blacklist_outstandingtoken", "token_blacklist_blacklistedtoken",  # login
    "transactions_originationfile", "transactions_ingestionfile",  # one NACHA file spans many merchants
    "bank_bankfile", "bank_inboundfile",  # a file to or from the bank spans merchants as its NACHA file does
    "transactions_parkedreturnitem",  # an item of an imported file not applied: spans merchants as its file does
    "transactions_ingestionpart",  # a part of an import, for its file's summary: spans merchants as its file does
    "vault_commandrun",  # when each scheduled command last ran well: the platform's, no merchant's
    "transactions_tracesequence",  # the originating DFI's trace sequence: its numbers span merchants' entries
    # The bank statement of our settlement account and its reconciliation: one account, every merchant's money.
    "reconciliation_statement", "reconciliation_statementline", "reconciliation_expectedpayment",
    "reconciliation_match", "reconciliation_reconciliationexception",
    "auth_group", "auth_group_permissions", "auth_permission", "django_admin_log", "django_content_type",
    "django_migrations", "django_session", "vault_cache",
    "accounts_ratewindow",  # throttle counters: keyed by credential, company or address, like the cache
    "django_tasks_database_dbtaskresult",  # the task queue: plumbing, a local table on the coordinator
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


def _foreign_keys() -> list[tuple[str, str, list[str], str, list[str]]]:
    """(table, constraint, columns, referenced table, referenced columns), columns in key order."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT t.relname, c.conname, "
            "array(SELECT a.attname FROM unnest(c.conkey) WITH ORDINALITY k(n, i) "
            "      JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n ORDER BY k.i), "
            "r.relname, "
            "array(SELECT a.attname FROM unnest(c.confkey) WITH ORDINALITY k(n, i) "
            "      JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n ORDER BY k.i) "
            "FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_class r ON r.oid = c.confrelid "
            "WHERE c.contype = 'f' AND c.connamespace = current_schema()::regnamespace"
        )
        return cursor.fetchall()


def _merchant_tables() -> dict[str, set[str]]:
    return {table: columns for table, columns in _tables().items() if table not in GLOBAL_TABLES}


def _distribution_column(table: str, merchant: dict[str, set[str]]) -> str | None:
    if table == COMPANY_TABLE:
        return "id"
    return "company_id" if table in merchant else None


def test_every_merchant_owned_table_carries_company_id():
    lacking = sorted(table for table, columns in _merchant_tables().items() if "company_id" not in columns)
    assert lacking == [], f"merchant-owned tables without company_id (or add them to GLOBAL_TABLES): {lacking}"


def test_global_tables_are_still_there():
    assert GLOBAL_TABLES <= set(_tables())


def test_unique_constraints_of_merchant_owned_tables_include_company_id():
    merchant = _merchant_tables()
    gaps = sorted(
        (table, index, ",".join(columns))
        for table, index, columns in _unique_indexes()
        if table in merchant and "company_id" not in columns
    )
    assert gaps == [], f"primary keys or unique constraints/indexes without company_id (vault/company_keys.py): {gaps}"


def test_foreign_keys_between_distributed_tables_include_the_distribution_column_on_both_sides():
    merchant = _merchant_tables()
    wrong = []
    for table, name, columns, referenced, referenced_columns in _foreign_keys():
        own, theirs = _distribution_column(table, merchant), _distribution_column(referenced, merchant)
        if own is None or theirs is None:
            continue
        pairs = set(zip(columns, referenced_columns, strict=True))
        if (own, theirs) not in pairs:
            wrong.append((table, name, columns, referenced, referenced_columns))
    assert wrong == [], f"foreign keys that do not pair company_id on both sides (vault/company_keys.py): {wrong}"


def test_no_global_table_references_a_distributed_one():
    merchant = _merchant_tables()
    wrong = sorted(
        (table, name, referenced)
        for table, name, _, referenced, _ in _foreign_keys()
        if table in GLOBAL_TABLES and table != COMPANY_TABLE and _distribution_column(referenced, merchant)
    )
    assert wrong == [], f"global tables with a foreign key into a distributed table: {wrong}"


def test_every_foreign_key_of_the_models_between_merchant_tables_is_in_the_database_with_company_id():
    """A foreign key declared on the model but added with db_constraint=False on the database side (README: a new
    foreign key to a merchant-owned table) must have its composite constraint (vault/company_keys.py)."""
    present = {(table, tuple(columns), referenced) for table, _, columns, referenced, _ in _foreign_keys()}
    missing = sorted(
        f"{model._meta.label}.{field.name}"
        for model in apps.get_models()
        if is_merchant_owned(model)
        for field in model._meta.local_fields
        if isinstance(field, models.ForeignKey) and field.db_constraint and is_merchant_owned(field.related_model)
        if (model._meta.db_table, (field.column, "company_id"), field.related_model._meta.db_table) not in present
    )
    assert missing == [], f"foreign keys without their (x_id, company_id) constraint (company_foreign_key): {missing}"


def test_the_checks_can_fail():
    """The queries see what they check: a merchant table's keys and composite foreign keys are found as such."""
    merchant = _merchant_tables()
    keys = {(table, index): columns for table, index, columns in _unique_indexes() if table in merchant}
    assert keys["transactions_transaction", "transactions_transaction_pkey"] == ("company_id", "id")
    fks = {name: (columns, referenced_columns) for _, name, columns, _, referenced_columns in _foreign_keys()}
    composite = [pair for pair in fks.values() if pair == (["transaction_id", "company_id"], ["id", "company_id"])]
    assert len(composite) >= 5


def test_a_row_cannot_point_into_another_companys_row(company, other_company):
    customer = factories.CustomerFactory(company=company)
    assert factories.PaymentMethodFactory(customer=customer).company_id == company.pk
    with pytest.raises(IntegrityError), transaction.atomic():
        factories.PaymentMethodFactory(customer=customer, company=other_company)
        connection.check_constraints()  # the foreign keys are deferred to the commit
