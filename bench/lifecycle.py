"""Lifecycle command throughput: originate, settle and import_returns over N pending ACH transactions.

Uses its own database: a fresh SQLite file under a temporary VAR_DIR, or, with --database-url, that
PostgreSQL database (dropped and recreated). Prints one line per step with rows/s.

    .venv/bin/python bench/lifecycle.py --transactions 20000
    .venv/bin/python bench/lifecycle.py --transactions 20000 --database-url postgres://postgres@127.0.0.1:5432/bench_lifecycle
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import tempfile
import time
from datetime import UTC, date, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _prepare_database(url: str | None, var_dir: str) -> None:
    os.environ.update({"DEBUG": "1", "VAR_DIR": var_dir, "LOG_LEVEL": "WARNING"})
    if url:
        import psycopg

        base, name = url.rsplit("/", 1)
        with psycopg.connect(f"{base}/postgres", autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}"')
            admin.execute(f'CREATE DATABASE "{name}"')
        os.environ["DATABASE_URL"] = url


def _timed(label: str, rows: int, command: str, *args: str) -> dict:
    from django.core.management import call_command

    out = io.StringIO()
    started = time.perf_counter()
    call_command(command, *args, stdout=out, stderr=io.StringIO())
    elapsed = time.perf_counter() - started
    print(f"{label:<16} {rows:>7} rows  {elapsed:7.2f} s  {rows / elapsed:9.0f} rows/s")
    return json.loads(out.getvalue())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--transactions", type=int, default=20000)
    parser.add_argument("--companies", type=int, default=20)
    parser.add_argument("--database-url")
    options = parser.parse_args()

    var_dir = tempfile.mkdtemp(prefix="bench-lifecycle-")
    _prepare_database(options.database_url, var_dir)
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import call_command

    from accounts.models import Company
    from transactions.lifecycle.returns import return_file_for
    from transactions.models import Transaction
    from vault import crypto

    call_command("migrate", verbosity=0)
    companies = Company.objects.bulk_create([Company(name=f"Bench {n}") for n in range(options.companies)])
    day = date(2026, 12, 7)
    account_hash = crypto.account_number_hash("123456789")
    Transaction.objects.bulk_create(
        [
            Transaction(
                company=companies[n % len(companies)],
                method="ACH",
                type="Credit" if n % 10 == 0 else "Debit",
                amount=100 + n % 5000,
                standard_entry_class_code="WEB",
                effective_date=day,
                name=f"Payer {n}",
                account_type="Savings" if n % 3 == 0 else "Checking",
                account_number="123456789",
                account_number_hash=account_hash,
                account_last_four="6789",
                routing_number="021000021",
            )
            for n in range(options.transactions)
        ],
        batch_size=2000,
    )
    count = options.transactions
    print(f"{count} transactions, {options.companies} companies, {'PostgreSQL' if options.database_url else 'SQLite'}")
    originated = _timed("originate", count, "originate", "--at", "2026-12-07T15:00:00Z")
    size = sum(Path(path).stat().st_size for path in originated["files"])
    print(f"{'':<16} {len(originated['files'])} file(s), {originated['batches']} batches, {size / 1e6:.1f} MB")
    _timed("settle", count, "settle", "--at", "2026-12-07T22:00:01Z")
    returned = list(Transaction.objects.select_related("company").order_by("id")[: max(1, count // 20)])
    path = Path(var_dir) / "returns.ach"
    path.write_text(return_file_for([(txn, "R01", {}) for txn in returned], at=datetime(2026, 12, 8, tzinfo=UTC)))
    _timed("import_returns", len(returned), "import_returns", str(path))
    _timed("settle (late)", len(returned), "settle", "--at", "2026-12-08T22:00:00Z")


if __name__ == "__main__":
    main()
