"""The daily volume limit reads the day's volume from the rows the transaction table's triggers keep
(transactions.DailyVolume, transactions 0024), not from the day's entries: a charge under a limit locks its company
and used to sum every entry of the day before it could go on (40-85 ms at 20,000 entries a day). What the rows add up
to must be what the sum said, through every way a row is written, moved and deleted."""

from __future__ import annotations

import io
import json
from datetime import datetime, time

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.models import Sum
from django.utils import timezone

from accounts.models import Company
from sampledata.seeding import seed_transactions
from tests import factories
from tests.concurrency import at_once
from tests.entry_reads import entry_rows_read
from tests.transactions.conftest import put_charge, saved_charge
from transactions.calendar import EASTERN
from transactions.models import AccountValidation, DailyVolume, Transaction
from transactions.risk.limits import VOLUME_EXCLUDED_STATUSES, daily_volume
from transactions.state import Actor, Caller, Event, transition

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

ADMIN = Actor(Caller.ADMIN, "user:1")


def _summed(company) -> int:
    """The day's volume as the entries themselves give it (what the limit read before the kept rows)."""
    now = timezone.now()
    start = datetime.combine(now.astimezone(EASTERN).date(), time.min, tzinfo=EASTERN)
    entries = Transaction.objects.filter(company=company, created_at__gte=start, account_validation__isnull=True)
    return entries.exclude(status__in=VOLUME_EXCLUDED_STATUSES).aggregate(total=Sum("amount"))["total"] or 0


def _kept(company) -> int:
    return daily_volume(company=company, now=timezone.now())


def _charge(client, customer, method, amount: int) -> dict:
    response = put_charge(client, saved_charge(customer, method, amount=amount))
    assert response.status_code == 201, response.content
    return response.json()["data"]


def test_the_kept_volume_follows_every_charge_and_move(api_client, company, other_company, customer, saved_method):
    settings = company.merchant_settings
    settings.daily_volume_limit, settings.decline_over, settings.hold_over = 10_000, 5_000, 4_000
    settings.save()

    first = _charge(api_client, customer, saved_method, 1_000)
    _charge(api_client, customer, saved_method, 6_000)  # declined: over the decline limit, never counts
    held = _charge(api_client, customer, saved_method, 4_500)  # held over the hold limit: still counts
    assert held["status"] == "HELD"
    factories.TransactionFactory(company=other_company, amount=9_999)
    validation = AccountValidation.objects.create(company=company, kind="prenote", effective_date=timezone.now())
    factories.TransactionFactory(company=company, amount=0, account_validation=validation)
    assert _kept(company) == _summed(company) == 5_500

    assert api_client.post(f"/transactions/{first['uuid']}/void").status_code == 200
    assert _kept(company) == _summed(company) == 4_500

    rejected = Transaction.objects.get(uuid=held["uuid"])
    transition(rejected, Event.REJECTED, actor=ADMIN, at=timezone.now(), reason="bank rejected the file")
    assert _kept(company) == _summed(company) == 0
    transition(rejected, Event.RESTORED, actor=ADMIN, at=timezone.now(), reason="sent again")
    assert _kept(company) == _summed(company) == 4_500

    # The limit reads it: 4,500 + 5,500 reaches 10,000 exactly; one cent more is held.
    assert _charge(api_client, customer, saved_method, 3_900)["status"] == "Pending"
    assert _charge(api_client, customer, saved_method, 1_600)["status"] == "Pending"
    assert _charge(api_client, customer, saved_method, 1)["status"] == "HELD"
    assert _kept(other_company) == _summed(other_company) == 9_999


def test_bulk_loads_and_deletes_keep_it(company):
    seed_transactions(company=company, count=300, vacuum=False)
    factories.TransactionFactory.create_batch(5, company=company, amount=700)
    assert _kept(company) == _summed(company)

    gone = list(Transaction.objects.filter(company=company, amount=700).values_list("pk", flat=True)[:2])
    with connection.cursor() as cursor:  # what deleting a company's rows does (the trail protects them from the ORM)
        cursor.execute("DELETE FROM transactions_transactionevent WHERE transaction_id = ANY(%s)", [gone])
        cursor.execute("DELETE FROM transactions_transaction WHERE id = ANY(%s)", [gone])
    assert _kept(company) == _summed(company)


@pytest.mark.django_db(transaction=True)
def test_concurrent_charges_under_a_limit_add_up_exactly(company, issued_key, customer, saved_method):
    """Eight charges of 1,000 at once against a limit of 5,000: the company lock queues them, each reads the volume
    the ones before it kept, so exactly five go through and three are held."""
    settings = company.merchant_settings
    settings.daily_volume_limit = 5_000
    settings.save()

    def charge() -> str:
        from rest_framework.test import APIClient

        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=issued_key.authorization)
        return _charge(client, customer, saved_method, 1_000)["status"]

    statuses = at_once(charge, 8)

    assert sorted(statuses) == ["HELD"] * 3 + ["Pending"] * 5
    assert _kept(company) == _summed(company) == 8_000


def test_the_limit_reads_no_entry_of_the_day(company):
    factories.TransactionFactory.create_batch(50, company=company, amount=100)
    before = entry_rows_read()

    assert _kept(Company.objects.get(pk=company.pk)) == 5_000

    assert entry_rows_read() == before


def _verify(*args) -> dict:
    out = io.StringIO()
    call_command("verify_counters", *args, stdout=out)
    return json.loads(out.getvalue())


def test_verify_counters_reports_and_repairs_a_drifted_daily_volume(company, other_company):
    factories.TransactionFactory.create_batch(3, company=company, amount=1_000)
    factories.TransactionFactory(company=other_company, amount=250)
    assert _verify()["dailyVolumeMismatched"] == []

    DailyVolume.objects.filter(company=company).update(amount=7)  # as after a maintenance with triggers off
    DailyVolume.objects.filter(company=other_company).delete()
    today = timezone.now().astimezone(EASTERN).date().isoformat()
    kept = 7 * DailyVolume.objects.filter(company=company).count()
    expected = [
        {"companyUuid": str(company.uuid), "day": today, "kept": kept, "summed": 3_000},
        {"companyUuid": str(other_company.uuid), "day": today, "kept": 0, "summed": 250},
    ]
    drifted = _verify("--dry-run")
    assert sorted(drifted["dailyVolumeMismatched"], key=lambda m: m["summed"]) == sorted(
        expected, key=lambda m: m["summed"]
    )
    assert drifted["repaired"] is False and _kept(company) == kept

    assert _verify()["repaired"] is True
    assert (_kept(company), _kept(other_company)) == (3_000, 250)
    assert _verify()["dailyVolumeMismatched"] == []
