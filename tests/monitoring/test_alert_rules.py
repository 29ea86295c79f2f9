"""The alert rules of docs/operations.md section 4, evaluated against the service's own /metrics text (newcomer review
2026-12-07 O3, O9): each rule is quiet on a healthy service and fires on the fault it is for: a rejected or
unacknowledged bank file, an exception in what the bank sent, a timer that never ran or missed a day, a stalled
worker, a database that does not answer. A small evaluator reads the rules' PromQL (a selector compared with a
number, `increase()` between two scrapes, `or`); a rule it cannot read fails the test."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import time_machine
import yaml
from django.conf import settings as django_settings
from django.db import DatabaseError, connection
from django.db.migrations.recorder import MigrationRecorder
from django.test import Client
from django.utils import timezone
from django_tasks_db.models import DBTaskResult
from prometheus_client.parser import text_string_to_metric_families

from bank.models import BankFile, BankFileStatus, InboundFile
from events.tasks import deliver_webhooks
from monitoring.metrics import DATABASE_METRICS, SCHEDULED_COMMANDS
from reconciliation.models import ExpectedPayment, ReconciliationException
from tests.monitoring.test_health_and_metrics import _due_delivery
from transactions.models import OriginationFile
from vault.models import CommandRun

RUNBOOK = Path(django_settings.BASE_DIR) / "docs" / "operations.md"
TOKEN = "r" * 40
# A Wednesday at 15:00 Eastern: every job due today has run, none missed.
NOW = datetime(2026, 12, 9, 20, 0, tzinfo=UTC)
Series = dict[tuple[str, frozenset], float]


def rules() -> dict[str, str]:
    """alert name -> expression, from section 4's one ```yaml block."""
    section = RUNBOOK.read_text().split("## 4. Health", 1)[1].split("\n## 5.", 1)[0]
    (block,) = re.findall(r"```yaml\n(.*?)```", section, flags=re.S)
    (group,) = yaml.safe_load(block)["groups"]
    return {rule["alert"]: rule["expr"] for rule in group["rules"]}


def scrape() -> Series:
    response = Client().get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 200
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(response.content.decode())
        for sample in family.samples
    }


SELECTOR = re.compile(r"(?P<name>[a-z_:]+)(?:\{(?P<labels>[^}]*)\})?")
COMPARISON = re.compile(r"(?P<left>.+?)\s*(?P<op>==|!=|>=|<=|>|<)\s*(?P<number>[0-9.]+)\Z")
OPERATORS: dict[str, Callable[[float, float], bool]] = {
    "==": float.__eq__,
    "!=": float.__ne__,
    ">": float.__gt__,
    "<": float.__lt__,
    ">=": float.__ge__,
    "<=": float.__le__,
}


def _select(series: Series, selector: str) -> dict[frozenset, float]:
    match = SELECTOR.fullmatch(selector.strip())
    assert match, f"the evaluator does not read {selector!r}"
    wanted = set(re.findall(r'(\w+)="([^"]*)"', match["labels"] or ""))
    return {labels: value for (name, labels), value in series.items() if name == match["name"] and wanted <= labels}


def firing(expr: str, before: Series, after: Series) -> set[frozenset]:
    """The label sets for which the rule fires on `after` (`increase()` reads the change since `before`)."""
    fired: set[frozenset] = set()
    for term in expr.split(" or "):
        comparison = COMPARISON.fullmatch(term.strip())
        assert comparison, f"the evaluator does not read {term!r}"
        left = comparison["left"]
        increase = re.fullmatch(r"increase\((.+)\[\w+\]\)", left)
        if increase:
            earlier = _select(before, increase[1])
            values = {labels: value - earlier.get(labels, 0.0) for labels, value in _select(after, increase[1]).items()}
        else:
            values = _select(after, left)
        compare = OPERATORS[comparison["op"]]
        fired |= {labels for labels, value in values.items() if compare(float(value), float(comparison["number"]))}
    return fired


def fired_alerts(before: Series, after: Series) -> dict[str, set[frozenset]]:
    return {name: found for name, expr in rules().items() if (found := firing(expr, before, after))}


@pytest.fixture
def healthy(settings, db):
    """A service whose every job ran today, with the clock pinned."""
    settings.METRICS_TOKEN, settings.METRICS_CACHE_SECONDS = TOKEN, 0
    with time_machine.travel(NOW, tick=False):
        MigrationRecorder.Migration.objects.update(applied=NOW - timedelta(days=30))
        for command in SCHEDULED_COMMANDS:
            CommandRun.objects.create(command=command, succeeded_at=NOW - timedelta(hours=1))
        yield


def _bank_file(status: str, name: str) -> BankFile:
    window = timezone.now() - timedelta(hours=len(name))
    origination = OriginationFile.objects.create(window_at=window, file_id_modifier="A", path=f"/x/{name}")
    return BankFile.objects.create(origination_file=origination, name=name, status=status)


def test_every_series_of_the_metrics_is_in_the_runbooks_table_and_every_rule_names_a_series(healthy):
    section = RUNBOOK.read_text().split("## 4. Health", 1)[1].split("\n## 5.", 1)[0]
    names = {metric.name + ("_total" if metric.counter else "") for metric in DATABASE_METRICS}
    assert {name for name in names if f"`{name}" not in section} == set()
    exposed = {name for name, _ in scrape()}
    for expr in rules().values():
        for name in re.findall(r"\b(vault_[a-z_]+)", expr):
            assert name in exposed, f"a rule names {name}, which /metrics does not carry"


def test_a_healthy_service_fires_no_rule(healthy):
    text = scrape()
    assert fired_alerts(text, text) == {}


def test_a_rejected_an_unacknowledged_and_a_contradicted_file_fire_the_first_until_sent_again(healthy):
    _bank_file(BankFileStatus.ACKNOWLEDGED, "a.ach")
    rejected = _bank_file(BankFileStatus.REJECTED, "bb.ach")
    _bank_file(BankFileStatus.UNACKNOWLEDGED, "ccc.ach")
    _bank_file(BankFileStatus.EXCEPTION, "eeeee.ach")
    after = scrape()
    assert after[("vault_bank_files", frozenset({("status", "rejected")}))] == 1
    assert after[("vault_bank_files", frozenset({("status", "acknowledged")}))] == 1
    assert after[("vault_bank_files", frozenset({("status", "pending")}))] == 0
    assert fired_alerts(after, after) == {
        "VaultBankFileNeedsAttention": {
            frozenset({("reason", "rejected")}),
            frozenset({("reason", "unacknowledged")}),
            frozenset({("reason", "exception")}),
        }
    }
    rejected.resent_as = _bank_file(BankFileStatus.PENDING, "dddd.ach")
    rejected.save(update_fields=["resent_as"])
    assert set(fired_alerts(after, scrape())["VaultBankFileNeedsAttention"]) == {
        frozenset({("reason", "unacknowledged")}),
        frozenset({("reason", "exception")}),
    }


def test_what_the_bank_sent_and_was_not_applied_fires_for_the_hour_it_came(healthy):
    before = scrape()
    InboundFile.objects.create(name="ack-1.json", sha256="a" * 64, kind="acknowledgement", state="refused", error="x")
    InboundFile.objects.create(
        name="ack-2.json",
        sha256="b" * 64,
        kind="acknowledgement",
        state="applied",
        error="acknowledges a file we never sent",
    )
    after = scrape()
    assert fired_alerts(before, after) == {
        "VaultBankFileException": {frozenset({("kind", "refused_file")}), frozenset({("kind", "file_not_applied")})}
    }
    assert fired_alerts(after, scrape()) == {}  # an hour later, nothing new: quiet


def test_an_open_reconciliation_break_fires_until_it_is_closed(healthy):
    expected = ExpectedPayment.objects.create(
        source_key="file:1",
        kind="file_settlement",
        direction="debit",
        amount=100,
        expected_on=NOW.date(),
        reference="x",
    )
    opened = ReconciliationException.objects.create(
        kind="unseen_expected", expected=expected, opened_at=NOW, due_on=NOW.date()
    )
    after = scrape()
    assert fired_alerts(after, after) == {"VaultReconciliationException": {frozenset({("kind", "unseen_expected")})}}
    ReconciliationException.objects.filter(pk=opened.pk).update(state="matched", closed_at=NOW)
    assert fired_alerts(after, scrape()) == {}


def test_a_timer_that_never_ran_and_one_that_missed_a_day_fire(healthy):
    CommandRun.objects.filter(command="purge_outbound").delete()  # never ran since the install
    CommandRun.objects.filter(command="settle").update(succeeded_at=NOW - timedelta(days=2))  # Monday's run
    after = scrape()
    missed = fired_alerts(after, after)["VaultScheduledCommandMissed"]
    assert missed == {frozenset({("command", "purge_outbound")}), frozenset({("command", "settle")})}
    assert after[("vault_command_days_missed", frozenset({("command", "purge_outbound")}))] == 30
    assert after[("vault_command_days_missed", frozenset({("command", "settle")}))] == 1


def test_a_timer_that_never_ran_is_not_missed_on_the_install_day(healthy):
    MigrationRecorder.Migration.objects.update(applied=NOW - timedelta(hours=2))
    CommandRun.objects.all().delete()
    after = scrape()
    assert {labels for (name, labels) in after if name == "vault_command_days_missed"} == {
        frozenset({("command", command)}) for command in SCHEDULED_COMMANDS
    }
    assert fired_alerts(after, after) == {}


def test_a_stalled_worker_and_a_task_past_its_lease_fire(healthy, company, settings):
    settings.TASK_LEASE_SECONDS = 60
    _due_delivery(company, settings, waiting=timedelta(minutes=20))
    row = DBTaskResult.objects.get(pk=deliver_webhooks.enqueue().id)
    row.claim("dead-worker")
    DBTaskResult.objects.filter(pk=row.pk).update(started_at=timezone.now() - timedelta(seconds=61))
    after = scrape()
    assert set(fired_alerts(after, after)) == {"VaultWebhookWorkerStalled", "VaultTasksPastLease"}


def test_a_database_that_does_not_answer_fires(healthy):
    def refuse(execute, sql, params, many, context):
        raise DatabaseError("the database is down")

    with connection.execute_wrapper(refuse):
        after = scrape()
    assert fired_alerts(after, after) == {"VaultMetricsDatabaseDown": {frozenset()}}
