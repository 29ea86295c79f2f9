"""How much automatic re-presentment recovers under each retry schedule (CONTRACT 15), played on the Fed calendar.

Plays `--debits` returned debits (R01 and R09, `--r09-share` of them R09) against simulated payers, each paid on a
payday cadence (weekly or biweekly Fridays, the 1st and 15th, or the month's last banking day) whose account holds
the money for a few days after each payday; some payers never recover. Each schedule type of the retry policy picks
the next presentment day with the service's own function (transactions.charges.retry_policy.next_attempt_date) and
the service's limits (2 re-presentments, 180 days from the original's settlement, a day past it skipped, never moved
earlier; transactions.charges.retry). A presentment made on day D settles the next banking day; a failed one is
returned two banking days after settling, and the next attempt is scheduled from that day. `--late-share` of the
originals were returned late (between day 150 and 175: a receiving bank's late R01), so the 180-day rule bites.
Prints, per schedule: recovered debits, the median days from the original's return to recovery, attempts made, and
attempts skipped by the 180-day rule. No database: a model of payers, not a speed figure.

    DEBUG=1 .venv/bin/python bench/recovery.py [--debits 10000] [--seed 7]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from transactions import calendar  # noqa: E402
from transactions.charges.retry import MAX_RETRIES, RETRY_WINDOW  # noqa: E402
from transactions.charges.retry_policy import next_attempt_date  # noqa: E402
from transactions.models import RetryPolicy  # noqa: E402

SCHEDULES = {
    "after 3 banking days": RetryPolicy(schedule_type="after_banking_days", banking_days=3),
    "weekday friday": RetryPolicy(schedule_type="weekday", weekday=4),
    "days of month 1, 15": RetryPolicy(schedule_type="days_of_month", days_of_month=[1, 15]),
    "last banking day of month": RetryPolicy(schedule_type="last_banking_day_of_month"),
}
FIRST_DAY = date(2026, 1, 2)
# How payers are paid (share, cadence): roughly the US split of pay frequencies.
CADENCES = (("biweekly", 0.43), ("weekly", 0.27), ("semimonthly", 0.19), ("monthly", 0.11))


@dataclass
class Payer:
    cadence: str
    anchor: date  # a payday, for weekly and biweekly
    flush_days: int  # calendar days the account holds the money after a payday
    never: bool  # never has the money again (closed in all but name)
    uncollected: bool  # an R09: the money was deposited but not yet collected

    def paydays(self, around: date) -> list[date]:
        if self.cadence in ("weekly", "biweekly"):
            step = 7 if self.cadence == "weekly" else 14
            offset = (around - self.anchor).days // step
            return [self.anchor + timedelta(days=step * (offset + k)) for k in (-1, 0)]
        months = [
            (around.year, around.month),
            ((around - timedelta(days=28)).year, (around - timedelta(days=28)).month),
        ]
        if self.cadence == "semimonthly":
            return [date(year, month, day) for year, month in months for day in (1, 15)]
        return [_last_banking_day(year, month) for year, month in months]

    def has_money(self, settles_on: date, *, first_return: date) -> bool:
        if self.never:
            return False
        if self.uncollected:  # collected within a few banking days of the return
            return settles_on >= calendar.add_business_days(first_return, 2)
        return any(0 <= (settles_on - payday).days <= self.flush_days for payday in self.paydays(settles_on))


def _last_banking_day(year: int, month: int) -> date:
    day = (date(year + month // 12, month % 12 + 1, 1)) - timedelta(days=1)
    while not calendar.is_business_day(day):
        day -= timedelta(days=1)
    return day


def payers(count: int, rng: random.Random, r09_share: float) -> list[Payer]:
    cadences = [name for name, _share in CADENCES]
    weights = [share for _name, share in CADENCES]
    made = []
    for _ in range(count):
        friday = FIRST_DAY + timedelta(days=(4 - FIRST_DAY.weekday()) % 7 + 7 * rng.randrange(2))
        made.append(
            Payer(
                cadence=rng.choices(cadences, weights)[0],
                anchor=friday,
                flush_days=rng.choice((1, 2, 3, 4, 6, 9)),
                never=rng.random() < 0.18,
                uncollected=rng.random() < r09_share,
            )
        )
    return made


@dataclass
class Outcome:
    recovered_after: int | None  # days from the original's return to the settlement that paid
    attempts: int
    skipped: int


def play(policy: RetryPolicy, payer: Payer, settled_on: date, returned_on: date) -> Outcome:
    """The original settled on `settled_on` and came back R01/R09 on `returned_on`; up to 2 re-presentments."""
    attempts = skipped = 0
    last_return = returned_on
    while attempts < MAX_RETRIES:
        day = next_attempt_date(policy, last_return)
        if day > settled_on + RETRY_WINDOW:
            skipped += 1  # skipped, never moved earlier
            break
        attempts += 1
        settles_on = calendar.next_business_day(day, include_today=False)
        if payer.has_money(settles_on, first_return=returned_on):
            return Outcome((settles_on - returned_on).days, attempts, skipped)
        last_return = calendar.add_business_days(settles_on, 2)
    return Outcome(None, attempts, skipped)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--debits", type=int, default=10_000)
    parser.add_argument("--r09-share", type=float, default=0.08, help="R09 among the returns (the rest R01)")
    parser.add_argument("--late-share", type=float, default=0.03, help="originals returned between day 150 and 175")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    people = payers(args.debits, rng, args.r09_share)
    originals = []
    for _payer in people:
        settled_on = calendar.next_business_day(FIRST_DAY + timedelta(days=rng.randrange(365)))
        late = rng.random() < args.late_share
        returned_on = (
            calendar.next_business_day(settled_on + timedelta(days=rng.randint(150, 175)))
            if late
            else calendar.add_business_days(settled_on, 2)
        )
        originals.append((settled_on, returned_on))
    print(
        f"{args.debits} returned debits ({args.r09_share:.0%} R09), {args.late_share:.0%} returned late; "
        f"payers: {', '.join(f'{name} {share:.0%}' for name, share in CADENCES)}; seed {args.seed}"
    )
    print("| schedule | recovered | share | median days to recovery | attempts made | skipped by 180-day rule |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, policy in SCHEDULES.items():
        outcomes = [play(policy, payer, *original) for payer, original in zip(people, originals, strict=True)]
        days = [outcome.recovered_after for outcome in outcomes if outcome.recovered_after is not None]
        print(
            f"| {name} | {len(days)} | {len(days) / args.debits:.1%} | "
            f"{statistics.median(days) if days else '-'} | {sum(o.attempts for o in outcomes)} | "
            f"{sum(o.skipped for o in outcomes)} |"
        )


if __name__ == "__main__":
    main()
