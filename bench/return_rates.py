"""Return rates over a processor's 60 days: what a company's rolling rates cost to read, against its debits.

Every return file weighs the return rates of each company it touches (the alerts and return-rate holds), the API
answers them (GET /risk/return-rates) and the admin's company list shows them. Each counts the company's debits of
the last 60 days. Seeds `--entries` entries across `--companies` companies (bench/lifecycle.py's seed), spreads them
over `--days` days of NACHA files (a batch per company, day and SEC code, its counts as `originate` writes them),
returns one entry in `--return-every`, VACUUMs, then times, for each company (the median of 3 calls each):
- the rolling 60-day rates by Nacha's method 1 (what the alerts weigh) and method 2 (files);
- the same debits counted from their entries, as the rates did before transactions/0023 (the comparison);
and the admin's company list with the rates of every company, once.

    DEBUG=1 .venv/bin/python bench/return_rates.py --database-url postgres://postgres@127.0.0.1:5432/bench_rates
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.lifecycle import _seed, migrated_database  # noqa: E402

LAST_DAY = date(2026, 12, 7)
REPEAT = 3


def _spread(days: int) -> None:
    """The seeded entries as `days` days of originated batches: entry n on day n % days, a file a day, a batch per
    company, day and SEC code, its entry and debit counts set from its entries. The entries keep their seeded status
    (only transactions.state moves one; the rates read none)."""
    from django.db import connection

    from transactions.models import Batch, OriginationFile

    first = LAST_DAY - timedelta(days=days - 1)
    files = OriginationFile.objects.bulk_create(
        [
            OriginationFile(
                window_at=_cut(first + timedelta(days=d)), file_id_modifier="A", path=f"day-{d}", sha256="x"
            )
            for d in range(days)
        ]
    )
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT DISTINCT company_id, standard_entry_class_code FROM transactions_transaction ORDER BY 1, 2"
        )
        scopes = cursor.fetchall()
    Batch.objects.bulk_create(
        [
            Batch(
                company_id=company_id,
                origination_file=files[d],
                standard_entry_class_code=sec,
                effective_date=first + timedelta(days=d),
                batched_at=_cut(first + timedelta(days=d)),
            )
            for d in range(days)
            for company_id, sec in scopes
        ],
        batch_size=5000,
    )
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE transactions_transaction t SET batch_id = b.id, "
            "effective_date = b.effective_date FROM transactions_batch b "
            "WHERE b.company_id = t.company_id AND b.standard_entry_class_code = t.standard_entry_class_code "
            "AND b.effective_date = %s::date + (t.id %% %s)::int",
            [first, days],
        )
        cursor.execute(
            "UPDATE transactions_batch b SET entry_count = c.entries, debit_count = c.debits FROM ("
            "  SELECT batch_id, count(*) AS entries, count(*) FILTER (WHERE type = 'Debit' AND amount > 0) AS debits"
            "  FROM transactions_transaction GROUP BY batch_id) c WHERE c.batch_id = b.id"
        )


def _cut(day: date) -> datetime:
    return datetime(day.year, day.month, day.day, 15, tzinfo=UTC)


def _returns(every: int) -> int:
    """One debit in `every` returned two days after its batch went out, with the bench lifecycle's codes."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO transactions_transactionreturn (company_id, transaction_id, uuid, return_code, "
            "return_reason, returned_at, is_untimely) "
            "SELECT t.company_id, t.id, gen_random_uuid(), "
            "(ARRAY['R01','R01','R02','R03','R10','R29'])[1 + t.id %% 6], "
            "'bench', b.batched_at + interval '2 days', false "
            "FROM transactions_transaction t JOIN transactions_batch b ON b.id = t.batch_id "
            "WHERE t.type = 'Debit' AND t.id %% %s = 0",
            [every],
        )
        returned = cursor.rowcount
        cursor.execute("VACUUM (ANALYZE) transactions_transaction")
        cursor.execute("VACUUM (ANALYZE) transactions_batch")
        cursor.execute("VACUUM (ANALYZE) transactions_transactionreturn")
    return returned


def _debits_from_entries(company_id: int, period) -> int:
    """The rates' debits counted from each entry, as daily_counts did before transactions/0023."""
    from django.db.models import Count
    from django.db.models.functions import TruncDate

    from transactions.calendar import EASTERN
    from transactions.methods import RETURNABLE_METHODS
    from transactions.models import NOT_SEEDED, Transaction, TransactionType

    start, end = period.bounds()
    rows = (
        Transaction.objects.filter(
            NOT_SEEDED,
            company_id=company_id,
            type=TransactionType.DEBIT,
            method__in=RETURNABLE_METHODS,
            batch__isnull=False,
            amount__gt=0,
            batch__batched_at__gte=start,
            batch__batched_at__lt=end,
        )
        .annotate(day=TruncDate("batch__batched_at", tzinfo=EASTERN))
        .values_list("day", "method", "standard_entry_class_code")
        .annotate(count=Count("pk"))
        .order_by()
    )
    return sum(count for *_, count in rows)


def _median_ms(call) -> tuple[float, object]:
    timings, answer = [], None
    for _ in range(REPEAT):
        started = time.perf_counter()
        answer = call()
        timings.append((time.perf_counter() - started) * 1000)
    return statistics.median(timings), answer


def _measure() -> None:
    from accounts.models import Company
    from transactions.risk import return_rates as rates

    period = rates.rolling_period(LAST_DAY)
    rows = {"method 1 (period)": [], "method 2 (files)": [], "counted from entries (before 0023)": []}
    debits_seen = []
    for company in Company.objects.order_by("pk"):
        ms, sheet = _median_ms(lambda company=company: rates.return_rates(company=company, period=period))
        rows["method 1 (period)"].append(ms)
        ms, _ = _median_ms(
            lambda company=company: rates.return_rates(company=company, period=period, method=rates.RateMethod.FILES)
        )
        rows["method 2 (files)"].append(ms)
        ms, from_entries = _median_ms(lambda company=company: _debits_from_entries(company.pk, period))
        rows["counted from entries (before 0023)"].append(ms)
        if from_entries != sheet.total.debits:
            raise SystemExit(
                f"company {company.pk}: {sheet.total.debits} debits from batches, {from_entries} from entries"
            )
        debits_seen.append(sheet.total.debits)
    debits = statistics.median(debits_seen)
    print(f"a company's debits in the window: {debits:,.0f} (median of {len(debits_seen)} companies)")
    print(f"{'read':<36} {'p50 a company':>14} {'max':>10} {'us a debit':>11}")
    for label, timings in rows.items():
        p50 = statistics.median(timings)
        print(f"{label:<36} {p50:>11.1f} ms {max(timings):>7.1f} ms {p50 * 1000 / debits:>11.3f}")
    listed, _ = _median_ms(
        lambda: list(Company.objects.annotate(**rates.current_rate_annotations(today=LAST_DAY)).values_list("pk"))
    )
    print(f"{'admin company list, every company':<36} {listed:>11.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=1_200_000)
    parser.add_argument("--companies", type=int, default=4)
    parser.add_argument("--days", type=int, default=60)
    parser.add_argument("--return-every", type=int, default=50)
    parser.add_argument("--database-url", required=True)
    options = parser.parse_args()
    migrated_database(options.database_url, "bench-rates-")
    started = time.perf_counter()
    _seed(options.entries, options.companies)
    _spread(options.days)
    returned = _returns(options.return_every)
    print(
        f"{options.entries:,} entries, {options.companies} companies, {options.days} days of files, "
        f"{returned:,} returns; seeded in {time.perf_counter() - started:.0f} s"
    )
    _measure()


if __name__ == "__main__":
    main()
