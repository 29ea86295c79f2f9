"""CONTRACT 12 "Credits never exceed the debit", property-based (hypothesis): whatever sequence of refunds, reversals,
voids, `originate` runs and a late return a settled debit goes through, the credits the NACHA files carry for it add
up to at most its amount, and none goes out after the debit came back. Each example runs in a savepoint rolled back
at its end, so every one starts from the same Settled debit; the commands run in this process (one worker)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import time_machine
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.transactions.ach import nacha_reader
from tests.transactions.ach.conftest import MONDAY_MORNING, MONDAY_SETTLED, run, saved_method_txn
from transactions.models import Transaction
from transactions.sandbox.bank_files import return_file_for

pytestmark = pytest.mark.django_db

AMOUNT = 7500
# Tuesday 10:05 Eastern, the day after the debit settled; each step a minute later.
FIRST_STEP = datetime(2026, 12, 8, 15, 5, tzinfo=UTC)
NOT_PAID = ("Voided", "DECLINED", "Rejected", "Returned")

STEPS = st.lists(
    st.one_of(
        st.tuples(st.just("refund"), st.one_of(st.none(), st.integers(min_value=1, max_value=AMOUNT))),
        st.tuples(st.just("reverse"), st.none()),
        st.tuples(st.just("void"), st.integers(min_value=0, max_value=5)),
        st.tuples(st.just("send"), st.none()),
        st.tuples(st.just("return"), st.none()),
    ),
    min_size=1,
    max_size=8,
)


class Rollback(Exception):
    pass


@pytest.fixture
def settled_debit(method, settings):
    settings.ORIGINATE_WORKERS = settings.IMPORT_RETURNS_WORKERS = settings.SETTLE_WORKERS = 1
    debit = saved_method_txn(method, amount=AMOUNT)
    run("originate", "--at", MONDAY_MORNING)
    run("settle", "--at", MONDAY_SETTLED)
    debit.refresh_from_db()
    assert debit.status == "Settled"
    return debit


def _credits_sent(at: datetime) -> list[int]:
    summary = run("originate", "--at", at.isoformat())
    entries = [
        entry
        for path in summary["files"]
        for batch in nacha_reader.read(Path(path).read_text()).batches
        for entry in batch.entries
    ]
    assert all(entry.transaction_code in nacha_reader.CREDIT_CODES for entry in entries)
    return [entry.amount for entry in entries]


class Run:
    """One example's steps against the debit, and what went out."""

    def __init__(self, client, debit: Transaction, tmp_path: Path) -> None:
        self.client, self.debit, self.tmp_path = client, debit, tmp_path
        self.credits: list[str] = []
        self.sent: list[int] = []
        self.returned = False

    def step(self, index: int, kind: str, value) -> None:
        at = FIRST_STEP + timedelta(minutes=index)
        url = f"/transactions/{self.debit.uuid}"
        if kind == "refund":
            response = self.client.post(f"{url}/refund", {} if value is None else {"amount": value}, format="json")
            assert response.status_code in (201, 409), response.content
        elif kind == "reverse":
            response = self.client.post(f"{url}/reverse", {"reason": "duplicate"}, format="json")
            assert response.status_code in (201, 409), response.content
        elif kind == "void" and self.credits:
            response = self.client.post(f"/transactions/{self.credits[value % len(self.credits)]}/void")
            assert response.status_code in (200, 409), response.content
            return
        elif kind == "send":
            sent = _credits_sent(at)
            assert not (self.returned and sent), "a credit went out after its debit came back"
            self.sent += sent
            return
        elif kind == "return" and not self.returned:
            path = self.tmp_path / f"return-{index}.ach"
            path.write_text(return_file_for([(self.debit, "R10", {})], at=at))
            assert run("import_returns", str(path), "--at", at.isoformat())["returns"] == 1
            self.returned = True
            return
        else:
            return
        if response.status_code == 201:
            self.credits.append(response.json()["data"]["uuid"])

    def check(self) -> None:
        assert sum(self.sent) <= AMOUNT, self.sent
        paying = Transaction.objects.filter(uuid__in=self.credits).exclude(status__in=NOT_PAID)
        assert sum(paying.values_list("amount", flat=True)) <= AMOUNT


def test_credits_sent_never_exceed_the_debit(api_client, settled_debit, tmp_path):
    @settings(
        max_examples=40,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(steps=STEPS)
    def example(steps):
        with time_machine.travel(FIRST_STEP, tick=True):
            try:
                with transaction.atomic():
                    played = Run(api_client, settled_debit, tmp_path)
                    for index, (kind, value) in enumerate(steps):
                        played.step(index, kind, value)
                        played.check()
                    played.step(len(steps), "send", None)  # whatever is still pending goes out
                    played.check()
                    raise Rollback
            except Rollback:
                pass

    example()
