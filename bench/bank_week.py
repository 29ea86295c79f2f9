"""A bank week: five banking days around a holiday (Christmas 2026: Mon 21 to Thu 24, then Mon 28), many merchants,
charges every day, and the bank played by the simulator over real SFTP on loopback (bank/simulator.py, in a thread).

Each day, driven by `--at`: the day's charges are made (Pending, next-day ACH, a few to the magic 000555NN and
000666NN accounts), then `originate`, `transmit_files` (the simulator reads the file with achkit and writes its
acknowledgement and return / NOC file at once), `fetch_bank_files`, `settle` (which settles the previous banking
day's file) and `reconcile` (the simulator writes a BAI2 statement of our settlement account for each file it
takes). After the week one more `settle` settles the last file. It ends with a reconciliation table, a row a day:
what we sent and settled against what the bank received, acknowledged and returned, totals to the cent, and whether
any file reached the bank twice; whether every statement line matched and every expected payment was seen; and how
long each step took. Exits 1 when anything does not reconcile.

Uses its own database: a fresh SQLite file under a temporary VAR_DIR, or, with --database-url, that PostgreSQL
database (dropped and recreated).

    .venv/bin/python bench/bank_week.py --entries 100000 --companies 50 \\
        --database-url postgres://postgres@127.0.0.1:5432/bench_bank_week
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIRST_DAY = date(2026, 12, 21)  # a Monday; Friday the 25th is a Federal Reserve holiday
BANKING_DAYS = 5
PASSWORD = "bank-week"  # noqa: S105 - the simulator's own
RETURNED_EVERY, NOTICED_EVERY = 100, 200  # one entry in 100 to 00055501 (R01), one in 200 to 00066601 (C01)
BANK_FIGURES = ("entries", "debitTotal", "creditTotal", "returns", "notices")
STEPS = ("charges", "originate", "transmit_files", "fetch_bank_files", "settle", "reconcile")


@dataclass
class Day:
    day: date
    seconds: dict[str, float] = field(default_factory=dict)
    outputs: dict[str, dict] = field(default_factory=dict)


def _et(day: date, hour: int, minute: int) -> str:
    """An Eastern wall-clock time of `day` as the `--at` UTC timestamp (December: UTC-5)."""
    return (datetime(day.year, day.month, day.day, hour, minute, tzinfo=UTC) + timedelta(hours=5)).strftime(
        "%Y-%m-%dT%H:%M:%SZ"
    )


def banking_days(first: date, count: int) -> list[date]:
    from transactions import calendar

    days, day = [], calendar.next_business_day(first)
    while len(days) < count:
        days.append(day)
        day = calendar.next_business_day(day, include_today=False)
    return days


def run(name: str, *args: str) -> dict:
    """A command as its timer runs it; a CommandError fails the week."""
    from django.core.management import call_command

    out = io.StringIO()
    call_command(name, *args, stdout=out, stderr=io.StringIO())
    return json.loads(out.getvalue().strip().splitlines()[-1])


def companies_make(count: int) -> list[int]:
    from accounts.models import Company, MerchantSettings

    made = Company.objects.bulk_create([Company(name=f"Bank week {n}") for n in range(count)])
    MerchantSettings.objects.bulk_create([MerchantSettings(company=company) for company in made])
    return [company.pk for company in made]


def charges_make(day: date, entries: int, company_ids: list[int], offset: int) -> None:
    """The day's charges as `PUT /transactions` leaves them: Pending next-day ACH entries (debits, a credit in ten)
    due the banking day after `day`, over every company; a few to the simulator's magic accounts."""
    from transactions import calendar
    from transactions.models import Transaction
    from vault import crypto

    settles = calendar.next_business_day(day, include_today=False)
    rows = []
    for k in range(entries):
        n = offset + k
        credit = n % 10 == 5
        if not credit and n % RETURNED_EVERY == 0:
            account = "00055501"
        elif not credit and n % NOTICED_EVERY == 1:
            account = "00066601"
        else:
            account = str(10_000_000 + n % 20_000)
        rows.append(
            Transaction(
                company_id=company_ids[n % len(company_ids)],
                method="ACH",
                type="Credit" if credit else "Debit",
                amount=100 + n % 5000,
                standard_entry_class_code="PPD" if credit else ("WEB", "PPD")[n % 2],
                effective_date=settles,
                name=f"Payer {n}",
                account_type="Checking",
                account_number=account,
                account_number_hash=crypto.account_number_hash(account),
                account_last_four=account[-4:],
                routing_number="021000021",
            )
        )
    Transaction.objects.bulk_create(rows, batch_size=5000)


def _timed(record: Day, step: str, work: Callable[[], dict | None]) -> None:
    started = time.perf_counter()
    output = work()
    record.seconds[step] = time.perf_counter() - started
    print(f"{record.day} {step}: {record.seconds[step]:.2f} s", file=sys.stderr, flush=True)
    if output is not None:
        record.outputs[step] = output


def week(*, days: list[date], entries: int, companies: int) -> list[Day]:
    """The week's days, each step run and timed (the bank connection's settings must point at a simulator)."""
    company_ids = companies_make(companies)
    records = []
    for number, day in enumerate(days):
        record = Day(day)
        _timed(
            record, "charges", lambda day=day, number=number: charges_make(day, entries, company_ids, number * entries)
        )
        _timed(record, "originate", lambda day=day: run("originate", "--at", _et(day, 16, 5)))
        _timed(record, "transmit_files", lambda day=day: run("transmit_files", "--at", _et(day, 16, 10)))
        _timed(record, "fetch_bank_files", lambda day=day: run("fetch_bank_files", "--at", _et(day, 16, 25)))
        _timed(record, "settle", lambda day=day: run("settle", "--at", _et(day, 17, 15)))
        _timed(record, "reconcile", lambda day=day: run("reconcile", "--at", _et(day, 17, 30)))
        records.append(record)
    from transactions import calendar

    after = calendar.next_business_day(days[-1], include_today=False)
    last = Day(after)
    _timed(last, "settle", lambda: run("settle", "--at", _et(after, 17, 15)))
    _timed(last, "reconcile", lambda: run("reconcile", "--at", _et(after, 17, 30)))
    records.append(last)
    return records


def statement_problems(records: list[Day]) -> list[str]:
    """The bank's statements against what we expected (`reconcile` each day; a new exception fails the day's run
    already): after the week, every line matched and every expectation seen, to the cent."""
    from reconciliation.models import ExpectedPayment, ItemState, StatementLine

    found = []
    lines = StatementLine.objects.filter(state=ItemState.OPEN).count()
    unseen = ExpectedPayment.objects.filter(state=ItemState.OPEN).count()
    if lines:
        found.append(f"{lines} statement line(s) not matched")
    if unseen:
        found.append(f"{unseen} expected payment(s) the bank has not shown")
    matched = sum(record.outputs.get("reconcile", {}).get("matched", 0) for record in records)
    if not matched and StatementLine.objects.exists():
        found.append("no statement line matched")
    return found


@dataclass
class Reconciled:
    day: date
    name: str
    sent: tuple[int, int, int]  # entries, debit total, credit total
    received: tuple[int, int, int]
    received_times: int
    status: str
    returned: tuple[int, int]  # entries, cents
    noticed: int
    bank_returned: int  # what the bank's return / NOC file said
    bank_noticed: int
    settled: tuple[int, int, int]  # entries, debit total, credit total
    pending: int

    @property
    def problems(self) -> list[str]:
        found = []
        if self.received != self.sent:
            found.append("the bank received other figures than we sent")
        if self.received_times != 1:
            found.append(f"the bank received it {self.received_times} times")
        if self.status != "acknowledged":
            found.append(f"the file is {self.status}")
        if (self.returned[0], self.noticed) != (self.bank_returned, self.bank_noticed):
            found.append("the returns and NOCs applied are not the ones the bank sent")
        if self.settled[0] + self.returned[0] != self.sent[0]:
            found.append("settled and returned entries do not add up to the entries sent")
        if self.settled[1] + self.returned[1] != self.sent[1] or self.settled[2] != self.sent[2]:
            found.append("settled and returned totals do not add up to the totals sent, to the cent")
        return found


def reconcile(bank) -> list[Reconciled]:
    """Each file we sent, against what the bank's journal says it received and what became of its entries."""
    from django.db.models import Count, Q, Sum

    from bank.models import BankFile
    from transactions.models import ChangeNotice, Status, Transaction, TransactionType

    received: dict[str, list[dict]] = {}
    for record in bank.received:
        received.setdefault(record["name"], []).append(record)
    rows = []
    for bank_file in BankFile.objects.select_related("origination_file").order_by("pk"):
        sent = bank_file.origination_file
        entries = Transaction.objects.filter(batch__origination_file=sent)
        debit, credit = Q(type=TransactionType.DEBIT), Q(type=TransactionType.CREDIT)
        figures = entries.aggregate(
            returned=Count("pk", filter=Q(status=Status.RETURNED)),
            returned_cents=Sum("amount", filter=Q(status=Status.RETURNED)),
            settled=Count("pk", filter=Q(status=Status.SETTLED)),
            settled_debits=Sum("amount", filter=Q(status=Status.SETTLED) & debit),
            settled_credits=Sum("amount", filter=Q(status=Status.SETTLED) & credit),
            pending=Count("pk", filter=Q(status=Status.PROCESSING)),
        )
        bank_records = received.get(bank_file.name, [])
        first = bank_records[0] if bank_records else dict.fromkeys(BANK_FIGURES, 0)
        rows.append(
            Reconciled(
                day=sent.window_at.date(),
                name=bank_file.name,
                sent=(sent.entry_count, sent.debit_total, sent.credit_total),
                received=(first["entries"], first["debitTotal"], first["creditTotal"]),
                received_times=len(bank_records),
                status=bank_file.status,
                returned=(figures["returned"], figures["returned_cents"] or 0),
                noticed=ChangeNotice.objects.filter(transaction__in=entries).count(),
                bank_returned=first["returns"],
                bank_noticed=first["notices"],
                settled=(figures["settled"], figures["settled_debits"] or 0, figures["settled_credits"] or 0),
                pending=figures["pending"],
            )
        )
    return rows


def _dollars(cents: int) -> str:
    return f"${cents / 100:,.2f}"


def report(records: list[Day], rows: list[Reconciled], holidays: list[date]) -> str:
    lines = [
        f"bank week: {len(rows)} files, holiday(s) skipped: {', '.join(str(day) for day in holidays) or 'none'}",
        "",
        "| day | file | sent: entries, debits, credits | bank received (times) | bank's answer "
        "| bank returned, NOCs | returns applied | NOCs applied | settled: entries, debits, credits | reconciles |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for row in rows:
        lines.append(
            f"| {row.day} | {row.name} | {row.sent[0]:,}, {_dollars(row.sent[1])}, {_dollars(row.sent[2])} "
            f"| {row.received[0]:,}, {_dollars(row.received[1])}, {_dollars(row.received[2])} ({row.received_times}) "
            f"| {row.status} | {row.bank_returned:,}, {row.bank_noticed:,} "
            f"| {row.returned[0]:,}, {_dollars(row.returned[1])} | {row.noticed:,} "
            f"| {row.settled[0]:,}, {_dollars(row.settled[1])}, {_dollars(row.settled[2])} "
            f"| {'yes' if not row.problems else '; '.join(row.problems)} |"
        )
    lines += ["", "| day | " + " | ".join(f"{step} (s)" for step in STEPS) + " |"]
    lines.append("| --- |" + " --- |" * len(STEPS))
    for record in records:
        cells = [f"{record.seconds[step]:.2f}" if step in record.seconds else "-" for step in STEPS]
        lines.append(f"| {record.day} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--entries", type=int, default=2000, help="charges a day (default 2000)")
    parser.add_argument("--companies", type=int, default=50, help="merchants (default 50)")
    parser.add_argument("--days", type=int, default=BANKING_DAYS, help="banking days (default 5)")
    parser.add_argument("--database-url", help="a PostgreSQL database to drop, create and use")
    options = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from bench.lifecycle import migrated_database

    var_dir = migrated_database(options.database_url, "bench-bank-week-")
    from django.conf import settings

    from bank.simulator import bank_in_thread
    from transactions import calendar

    days = banking_days(FIRST_DAY, options.days)
    holidays = [
        days[0] + timedelta(days=n)
        for n in range((days[-1] - days[0]).days)
        if (days[0] + timedelta(days=n)).weekday() < 5 and not calendar.is_business_day(days[0] + timedelta(days=n))
    ]
    with bank_in_thread(
        Path(tempfile.mkdtemp(prefix="bank-week-sftp-")), password=PASSWORD, statement="bai2"
    ) as running:
        settings.BANK_SETTLEMENT_ACCOUNT = running.bank.settlement_account
        settings.BANK_SFTP_URL = running.url()
        settings.BANK_SFTP_PASSWORD = PASSWORD
        settings.BANK_SFTP_HOST_KEY = running.host_key
        settings.BANK_SFTP_TIMEOUT_SECONDS = 300
        print(f"{options.entries:,} charges a day, {options.companies} merchants, VAR_DIR {var_dir}", flush=True)
        records = week(days=days, entries=options.entries, companies=options.companies)
        rows = reconcile(running.bank)
        statement = statement_problems(records)
    print(report(records, rows, holidays))
    print(f"\nthe bank's statements: {'; '.join(statement) or 'every line matched, every expected payment seen'}")
    if any(row.problems for row in rows) or statement:
        sys.exit(1)


if __name__ == "__main__":
    main()
