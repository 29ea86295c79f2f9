"""Reconciliation on a labelled corpus of statement lines (CONTRACT 19, issue 60): the test bank's statements
(bank/statements.py, one a banking day, settlements posted per batch, with noise: split settlements, fees,
interest, other businesses' lines, late returns, lines posted a day late), the expected payments the service makes
for the same files and returns (tests/reconciliation/corpus.py, as reconciliation/expectations.py makes them), then
`import_statement`'s service on each statement and one `reconcile` run over all of them. Prints the share of our
lines matched automatically, every false match, and lines per second for the import and for `reconcile`; exits 1
below 99.5% matched or on any false match.

Uses its own database: a fresh SQLite file under a temporary VAR_DIR, or, with --database-url, that PostgreSQL
database (dropped and recreated).

    .venv/bin/python bench/reconcile.py --lines 10000 [--format camt053] \\
        [--database-url postgres://postgres@127.0.0.1:5432/bench_reconcile]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from datetime import UTC, datetime
from datetime import time as clock
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ACCOUNT = "9876543210"
FILES_A_DAY = 100


def corpus_of(lines: int, posting: str, seed: int):
    """The smallest corpus of FILES_A_DAY files a banking day with at least `lines` statement lines."""
    from tests.reconciliation.corpus import corpus_make

    days = 1
    while True:
        corpus = corpus_make(seed=seed, days=days, files_a_day=FILES_A_DAY, posting=posting, noise=True)
        if sum(len(postings) for postings in corpus.postings.values()) >= lines:
            return corpus
        days += max(1, days // 2)


def statements_import(corpus, kind: str, folder: Path) -> tuple[float, dict]:
    """Each day's statement written as the test bank writes it and read by the service; (seconds, truth of each
    line by its database id)."""
    from bank import statements
    from reconciliation.models import StatementLine
    from reconciliation.services import statement_import
    from tests.reconciliation.corpus import truth_of

    writer, suffix = statements.WRITERS[kind]
    balance, seconds, names = 0, 0.0, {}
    for day, postings in sorted(corpus.postings.items()):
        text = writer(account=ACCOUNT, day=day, opening=balance, postings=postings, file_id=f"{day:%y%m%d}")
        balance += sum(p.amount if p.direction == "credit" else -p.amount for p in postings)
        path = folder / f"STATEMENT_{day:%Y%m%d}{suffix}"
        path.write_text(text)
        started = time.perf_counter()
        statement = statement_import(name=path.name, data=path.read_bytes(), at=datetime.now(tz=UTC)).statement
        seconds += time.perf_counter() - started
        names[statement.pk] = postings
    truth = {
        pk: truth_of(names[statement_id][position - 1])
        for pk, statement_id, position in StatementLine.objects.values_list("pk", "statement_id", "position")
    }
    return seconds, truth


def expectations_insert(corpus) -> dict[int, tuple]:
    from reconciliation.models import ExpectedPayment

    rows = ExpectedPayment.objects.bulk_create(
        [
            ExpectedPayment(
                source_key=f"bench:{item.id}",
                kind="return_item" if corpus.expected_truth[item.id][0].startswith("return:") else "file_settlement",
                direction=item.direction,
                amount=item.amount,
                expected_on=item.day,
                reference=item.reference,
                group=item.group,
            )
            for item in corpus.expected
        ],
        batch_size=2000,
    )
    return {row.pk: corpus.expected_truth[item.id] for row, item in zip(rows, corpus.expected, strict=True)}


def judge(line_truth: dict, expected_truth: dict) -> tuple[set, list[str]]:
    """The matches `reconcile` recorded, judged against the truth as the property test judges them."""
    from reconciliation import matching
    from reconciliation.models import ExpectedPayment, Match, StatementLine
    from tests.reconciliation.corpus import judged

    members: dict[int, tuple[list, list]] = {pk: ([], []) for pk in Match.objects.values_list("pk", flat=True)}
    for pk, match_id in StatementLine.objects.filter(match__isnull=False).values_list("pk", "match_id"):
        members[match_id][0].append(matching.Line(id=pk, amount=0, direction="", day=None, reference=""))
    for pk, match_id in ExpectedPayment.objects.filter(match__isnull=False).values_list("pk", "match_id"):
        members[match_id][1].append(matching.Expected(id=pk, amount=0, direction="", day=None, reference=""))
    rules = dict(Match.objects.values_list("pk", "rule"))
    proposals = [matching.Proposal(rules[pk], tuple(lines), tuple(items)) for pk, (lines, items) in members.items()]
    return judged(proposals, line_truth, expected_truth)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, default=10_000, help="statement lines at least (default 10,000)")
    parser.add_argument("--format", choices=("bai2", "camt053"), default="bai2")
    parser.add_argument("--posting", choices=("file", "batch"), default="batch")
    parser.add_argument("--seed", type=int, default=60)
    parser.add_argument("--database-url", help="a PostgreSQL database to drop, create and use")
    parser.add_argument("--profile", action="store_true", help="print where reconcile spends its time")
    options = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from bench.lifecycle import migrated_database

    migrated_database(options.database_url, "bench-reconcile-")
    from django.conf import settings

    from reconciliation.services import reconcile_run
    from transactions import calendar

    settings.BANK_SETTLEMENT_ACCOUNT = ACCOUNT
    corpus = corpus_of(options.lines, options.posting, options.seed)
    import_seconds, line_truth = statements_import(corpus, options.format, Path(tempfile.mkdtemp(prefix="stmts-")))
    expected_truth = expectations_insert(corpus)
    after = calendar.add_business_days(max(corpus.postings), 3)
    started, cpu = time.perf_counter(), time.process_time()
    if options.profile:
        import cProfile
        import pstats

        profiler = cProfile.Profile()
        result = profiler.runcall(reconcile_run, at=datetime.combine(after, clock(12), tzinfo=UTC))
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)
    else:
        result = reconcile_run(at=datetime.combine(after, clock(12), tzinfo=UTC))
    reconcile_seconds, reconcile_cpu = time.perf_counter() - started, time.process_time() - cpu
    right, false = judge(line_truth, expected_truth)
    ours = [pk for pk, truth in line_truth.items() if truth != ("foreign",)]
    strangers_matched = len([pk for pk, truth in line_truth.items() if truth == ("foreign",) and pk in right])
    figures = {
        "format": options.format,
        "posting": options.posting,
        "lines": len(line_truth),
        "expected": len(expected_truth),
        "oursOrTheBanks": len(ours),
        "matchedAutomatically": len(right),
        "matchedShare": round(len(right) / len(ours), 5),
        "falseMatches": false,
        "strangersMatched": strangers_matched,
        "rules": result.rules,
        "exceptions": len(result.exceptions),
        "importLinesPerSecond": round(len(line_truth) / import_seconds),
        "reconcileLinesPerSecond": round(result.lines / reconcile_seconds),
        "reconcileSeconds": round(reconcile_seconds, 2),
        "reconcileCpuSeconds": round(reconcile_cpu, 2),  # this process's (the whole of it on SQLite)
        "database": settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1],
    }
    print(json.dumps(figures, indent=1))
    if false or len(right) < 0.995 * len(ours) or strangers_matched:
        sys.exit(1)


if __name__ == "__main__":
    main()
