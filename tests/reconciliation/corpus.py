"""A labelled corpus of statement lines as the test bank writes them (bank/statements.py: settlements per file or
per batch, returns, late returns, and with noise fees, interest, other businesses' lines and split settlements),
with the expected payments the service makes for the same files and returns: shared by the property test (small)
and bench/reconcile.py (10,000 lines). Each line and each expectation carries its truth, so every match the
matcher proposes can be judged."""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from datetime import date

from bank import statements
from reconciliation import matching
from transactions import calendar

DEBIT, CREDIT = 27, 22


@dataclass
class Corpus:
    postings: dict[date, list[statements.Posting]] = field(default_factory=dict)  # a statement a day
    expected: list[matching.Expected] = field(default_factory=list)
    expected_truth: dict[int, tuple] = field(default_factory=dict)

    def lines(self) -> tuple[list[matching.Line], dict[int, tuple]]:
        """The statements' lines as the matcher takes them, and each one's truth."""
        lines, truth = [], {}
        for day in sorted(self.postings):
            for posting in self.postings[day]:
                line = matching.Line(
                    id=len(lines) + 1,
                    amount=posting.amount,
                    direction=posting.direction,
                    day=posting.value_date,
                    reference=posting.customer_reference,
                    type_code=posting.type_code,
                )
                lines.append(line)
                truth[line.id] = truth_of(posting)
        return lines, truth


def truth_of(posting: statements.Posting) -> tuple:
    """What a line is: our file's settlement of a day and direction, one returned entry, or the bank's or a
    stranger's line (which no expectation may take)."""
    if posting.label.startswith("file:"):
        return (posting.label, posting.direction)
    return (posting.label,)


def _file(rng: random.Random, name: str, day: date, trace: list[int]) -> dict:
    """A file as achkit reads it: a few batches, debits and sometimes credits, all settling on `day` or (a Same
    Day batch beside next-day ones) the banking day before."""
    batches = []
    for number in range(1, rng.randint(1, 4) + 1):
        effective = day if rng.random() < 0.85 else calendar.business_days_before(day, 1)
        entries = []
        for _ in range(rng.randint(1, 6)):
            trace[0] += 1
            code = DEBIT if rng.random() < 0.8 else CREDIT
            entries.append(
                {"txn_code": code, "amount_cents": rng.randint(1, 500_000), "trace_number": f"{trace[0]:015d}"}
            )
        batches.append({"batch_number": number, "effective_date": f"{effective:%y%m%d}", "entries": entries})
    return {"batches": batches, "name": name}


def corpus_make(*, seed: int, days: int, files_a_day: int, posting: str, noise: bool) -> Corpus:
    rng = random.Random(seed)
    corpus, trace = Corpus(), [91000010000000]
    day = calendar.next_business_day(date(2026, 12, 7))
    late: dict[date, list[tuple]] = {}
    for _ in range(days):
        postings: list[statements.Posting] = []
        returned: list[tuple[str, int, bool, date]] = []
        for number in range(files_a_day):
            name = f"ACH_{day:%Y%m%d}_{chr(65 + number % 26)}_{rng.getrandbits(32):08x}.ach"
            parsed = _file(rng, name, day, trace)
            postings += statements.file_postings(name, parsed, posting=posting)
            _expect_file(corpus, name, parsed)
            for batch in parsed["batches"]:
                for entry in batch["entries"]:
                    if entry["txn_code"] == DEBIT and rng.random() < 0.03:
                        back = day if rng.random() < 0.7 else calendar.add_business_days(day, rng.randint(1, 3))
                        late.setdefault(back, []).append((entry["trace_number"], entry["amount_cents"], True, back))
        returned += late.pop(day, [])
        postings += statements.return_postings(returned)
        for trace_number, amount, _debit, back in returned:
            _expect(corpus, ("return:" + trace_number,), amount, "debit", back, trace_number, f"RET_{back:%Y%m%d}")
        if noise:
            postings = statements.noise_add(postings, rng, day=day)
        # The bank posts a few lines a banking day late: inside every expectation's window.
        postings = [
            replace(posting, value_date=calendar.add_business_days(posting.value_date, 1))
            if rng.random() < 0.02 and posting.label != "foreign"
            else posting
            for posting in postings
        ]
        corpus.postings[day] = postings
        day = calendar.next_business_day(day, include_today=False)
    return corpus


def _expect(corpus: Corpus, truth: tuple, amount: int, direction: str, day: date, reference: str, group: str) -> None:
    item = matching.Expected(
        id=len(corpus.expected) + 1, amount=amount, direction=direction, day=day, reference=reference, group=group
    )
    corpus.expected.append(item)
    corpus.expected_truth[item.id] = truth


def _expect_file(corpus: Corpus, name: str, parsed: dict) -> None:
    """As reconciliation.expectations.file_settlements makes them: a file's debits as a credit and its credits as
    a debit, a pair per settlement day."""
    totals: dict[tuple[date, str], int] = {}
    for batch in parsed["batches"]:
        settles = statements.settlement_day(batch["effective_date"])
        for entry in batch["entries"]:
            direction = "credit" if entry["txn_code"] == DEBIT else "debit"
            totals[(settles, direction)] = totals.get((settles, direction), 0) + entry["amount_cents"]
    for (settles, direction), amount in sorted(totals.items()):
        _expect(corpus, (f"file:{name}@{settles}", direction), amount, direction, settles, name, name)


def judged(proposals: list[matching.Proposal], line_truth: dict[int, tuple], expected_truth: dict[int, tuple]):
    """(correct proposals' line ids, false matches described one a line)."""
    right, false = set(), []
    for proposal in proposals:
        truths = {line_truth[line.id] for line in proposal.lines}
        wanted = {expected_truth[item.id] for item in proposal.expected}
        if proposal.rule in ("bank_fee", "bank_interest"):
            good = truths == {(proposal.rule.removeprefix("bank_"),)}
        else:
            good = len(truths) == 1 and truths == wanted
        if good:
            right.update(line.id for line in proposal.lines)
        else:
            false.append(f"{proposal.rule}: lines {sorted(truths)} taken for {sorted(wanted)}")
    return right, false
