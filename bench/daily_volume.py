"""The daily volume limit at a large merchant's volume: what a charge under a limit pays to know the day's volume.

A charge of a company with a daily volume limit locks the company row and reads the day's volume before it can go
on, so the company's charges queue behind that read. Seeds `--entries` entries created today for each of
`--companies` companies, interleaved as live merchants' rows are (bench/lifecycle.py's seed, PostgreSQL); then, for
the first company, prints the median of `--repeat` reads of the day's volume from the rows the triggers keep
(transactions 0024) and, to compare, summed from the day's entries as the limit did before it; then the p50 of
`--charges` saved-method charges through the API in process (APIClient, DEBUG off), with and without a limit, in
turn.

    DEBUG=1 .venv/bin/python bench/daily_volume.py --database-url postgres://postgres@127.0.0.1:5432/bench_volume_limit
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from datetime import datetime
from datetime import time as clock_time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.lifecycle import _seed, migrated_database  # noqa: E402


def _summed(company_id: int, now: datetime) -> int:
    """The day's volume summed from its entries, as transactions.risk.limits.daily_volume did before 0024."""
    from django.db.models import Sum

    from transactions.calendar import EASTERN
    from transactions.models import Transaction
    from transactions.risk.limits import VOLUME_EXCLUDED_STATUSES

    day_start = datetime.combine(now.astimezone(EASTERN).date(), clock_time.min, tzinfo=EASTERN)
    entries = Transaction.objects.filter(
        company_id=company_id, created_at__gte=day_start, account_validation__isnull=True
    )
    return entries.exclude(status__in=VOLUME_EXCLUDED_STATUSES).aggregate(total=Sum("amount"))["total"] or 0


def _median_ms(call, repeat: int) -> tuple[float, object]:
    timings, answer = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        answer = call()
        timings.append((time.perf_counter() - started) * 1000)
    return statistics.median(timings), answer


def _charges(company, count: int) -> dict[str, float]:
    """p50 ms of `count` charges with a limit and `count` without, one of each in turn."""
    from rest_framework.test import APIClient

    from accounts.models import MerchantSettings
    from customers.models import Customer
    from payments.models import PaymentMethod
    from tests import factories

    customer = Customer.objects.create(company=company, first_name="Ada", last_name="Lovelace")
    method = factories.PaymentMethodFactory(customer=customer, account_number="000123456789")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=factories.issue_api_key(company).authorization)
    body = {
        "method": "ACH",
        "type": "Debit",
        "amount": 100,
        "customerUuid": str(customer.uuid),
        "paymentMethodUuid": str(method.uuid),
        "paymentDetails": {  # required with a saved method too; the saved method's account replaces it
            "name": "Ada Lovelace",
            "accountType": "Checking",
            "accountNumber": "000123456789",
            "routingNumber": "021000021",
        },
    }
    timings: dict[str, list[float]] = {"with a daily limit": [], "without a limit": []}
    for _ in range(count):
        for label, limit in (("with a daily limit", 10**15), ("without a limit", None)):
            MerchantSettings.objects.filter(company=company).update(daily_volume_limit=limit)
            started = time.perf_counter()
            response = client.put("/transactions", body, format="json")
            timings[label].append((time.perf_counter() - started) * 1000)
            if response.status_code != 201:
                raise SystemExit(f"charge failed: {response.status_code} {response.content[:300]}")
    assert PaymentMethod.objects.filter(pk=method.pk).exists()
    return {label: statistics.median(values) for label, values in timings.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=20_000, help="the measured company's entries today")
    parser.add_argument("--companies", type=int, default=10, help="companies whose entries interleave, as live ones do")
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--charges", type=int, default=200)
    parser.add_argument("--database-url", required=True)
    options = parser.parse_args()
    migrated_database(options.database_url, "bench-volume-")
    from django.conf import settings
    from django.db import connection
    from django.utils import timezone

    from accounts.models import Company
    from transactions.risk.limits import daily_volume

    settings.DEBUG = False  # as served: no query log
    _seed(options.entries * options.companies, options.companies)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM (ANALYZE) transactions_transaction")
    company = Company.objects.order_by("pk").first()
    now = timezone.now()
    kept_ms, kept = _median_ms(lambda: daily_volume(company=company, now=now), options.repeat)
    summed_ms, summed = _median_ms(lambda: _summed(company.pk, now), options.repeat)
    if kept != summed:
        raise SystemExit(f"the kept volume {kept} is not the entries' sum {summed}")
    print(
        f"{options.entries:,} entries created today by the measured company, among {options.companies} companies' "
        f"interleaved; its day's volume {kept:,} cents"
    )
    print(f"{'the day volume read':<40} {'p50':>9}")
    print(f"{'from the kept rows (transactions 0024)':<40} {kept_ms:>6.2f} ms")
    print(f"{'summed from the entries (before 0024)':<40} {summed_ms:>6.2f} ms")
    for label, p50 in _charges(company, options.charges).items():
        print(f"{'a charge ' + label:<40} {p50:>6.2f} ms")


if __name__ == "__main__":
    main()
