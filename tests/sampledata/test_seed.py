"""`seed_transactions`: realistic groups, encrypted account numbers, idempotent, one JSON line."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from transactions.models import ChangeNotice, Transaction, TransactionReturn

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("debug_mode")]


def _seed(company, count):
    out = StringIO()
    call_command("seed_transactions", company=str(company.uuid), count=count, verbosity=0, stdout=out)
    return json.loads(out.getvalue())


def test_seed_fills_groups_and_is_idempotent(company):
    first = _seed(company, 400)
    assert first["created"] == 400 and first["transactions"] == 400
    assert first["returns"] > 0 and first["holds"] > 0 and first["exceptions"] > 0
    again = _seed(company, 400)
    assert again["created"] == 0 and again["transactions"] == 400
    codes = set(TransactionReturn.objects.filter(company=company).values_list("return_code", flat=True))
    assert codes <= {"R01", "R02", "R03", "R04", "R07", "R08", "R10", "R16", "R20", "R29"}
    assert Transaction.objects.filter(company=company, method="CRD").exclude(card_masked="").exists()
    assert Transaction.objects.filter(company=company, settlement__isnull=False).exists()
    assert ChangeNotice.objects.filter(company=company).count() == first["notices"]


def test_seeded_account_numbers_are_encrypted_at_rest(company):
    _seed(company, 50)
    txn = Transaction.objects.filter(company=company).exclude(account_number=None).first()
    with connection.cursor() as cursor:
        cursor.execute("SELECT account_number FROM transactions_transaction WHERE id = %s", [txn.pk])
        stored = cursor.fetchone()[0]
    assert stored != txn.account_number and txn.account_number not in stored
    assert txn.account_last_four == txn.account_number[-4:]


def test_unknown_company_is_a_command_error(db):
    with pytest.raises(CommandError):
        call_command("seed_transactions", company="00000000-0000-0000-0000-000000000000", count=1)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_seed_ends_with_vacuum_analyze_of_the_tables_it_filled():
    from tests import factories

    company = factories.CompanyFactory()
    with connection.cursor() as cursor:
        cursor.execute("SELECT clock_timestamp()")
        started = cursor.fetchone()[0]
    result = _seed(company, 200)
    assert result["created"] == 200 and result["vacuumed"] is True
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT relname FROM pg_stat_user_tables WHERE last_vacuum >= %s AND last_analyze >= %s",
            [started, started],
        )
        vacuumed = {row[0] for row in cursor.fetchall()}
    assert {"transactions_transaction", "transactions_transactionreturn", "transactions_batch",
            "reporting_transactioncount", "reporting_payername"} <= vacuumed  # fmt: skip


def test_seed_inside_a_transaction_skips_vacuum(company):
    assert _seed(company, 20)["vacuumed"] is False


@pytest.mark.postgres
def test_a_load_that_doubles_the_table_rebuilds_its_indexes_and_keys_as_they_were(company, monkeypatch):
    from sampledata import seeding_sql

    def schema():
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT indexrelid::regclass::text, pg_get_indexdef(indexrelid) FROM pg_index "
                "WHERE indrelid = 'transactions_transaction'::regclass"
            )
            indexes = set(cursor.fetchall())
            cursor.execute(
                "SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid), convalidated FROM pg_constraint "
                "WHERE conrelid = ANY(%s::regclass[])",
                [[model._meta.db_table for model in seeding_sql.REBUILT_TABLES]],
            )
            return indexes, set(cursor.fetchall())

    before = schema()
    monkeypatch.setattr(seeding_sql, "REBUILD_MIN_ROWS", 100)
    monkeypatch.setattr(seeding_sql, "STATEMENT_ROWS", 150)
    result = _seed(company, 400)
    assert result["created"] == 400 and result["returns"] > 0
    assert schema() == before
    assert Transaction.objects.filter(company=company).count() == 400
    assert Transaction.objects.filter(company=company, batch__isnull=False).exists()
