"""F11: GET /health (unauthenticated JSON; 503 when the database or the worker queue fails) and /metrics
(Prometheus text, behind a token or loopback only): request latencies, charges by status, delivery backlog and
the age of the oldest due delivery."""

from __future__ import annotations

import io
import json
import os
import re
import socket
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
import time_machine
from django.conf import settings as django_settings
from django.core.management import CommandError, call_command, get_commands, load_command_class
from django.db import connection
from django.test import Client
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from events.models import Delivery, Event
from events.outbox import events_fan_out
from events.services import endpoint_create
from events.tasks import deliver_webhooks
from monitoring.metrics import SCHEDULED_COMMANDS
from tests.events.conftest import customer_event
from tests.monitoring.throwaway_postgres import ThrowawayCluster
from tests.transactions.ach.conftest import bank_txn
from transactions.calendar import is_business_day
from vault.commands import ScheduledCommand

TOKEN = "m" * 40


@pytest.fixture
def fresh_metrics(settings):
    settings.METRICS_CACHE_SECONDS = 0
    settings.METRICS_ALLOW_LOOPBACK = True


def _due_delivery(company, settings, *, waiting: timedelta) -> Delivery:
    settings.WEBHOOK_ALLOW_PRIVATE_URLS = True
    endpoint_create(company=company, url="http://127.0.0.1:9/hook", event_types=["*"])
    customer_event(company)
    events_fan_out()  # the worker's first step: the event's deliveries
    delivery = Delivery.objects.get()
    Delivery.objects.filter(pk=delivery.pk).update(next_attempt_at=timezone.now() - waiting)
    return delivery


@pytest.mark.django_db
def test_health_is_200_json_without_credentials():
    response = Client().get("/health")
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    body = response.json()
    assert body["status"] == "ok"
    assert body["checks"]["database"]["ok"] and body["checks"]["workerQueue"]["ok"]


@pytest.mark.django_db
def test_a_delivery_left_due_past_the_limit_makes_health_503(company, settings):
    settings.HEALTH_QUEUE_MAX_AGE_SECONDS = 600
    _due_delivery(company, settings, waiting=timedelta(minutes=20))
    response = Client().get("/health")
    assert response.status_code == 503
    queue = response.json()["checks"]["workerQueue"]
    assert queue["ok"] is False and "run_worker" in queue["error"]


@pytest.mark.django_db
def test_an_event_left_waiting_for_its_fan_out_past_the_limit_makes_health_503(company, settings):
    settings.HEALTH_QUEUE_MAX_AGE_SECONDS = 600
    settings.WEBHOOK_ALLOW_PRIVATE_URLS = True
    endpoint_create(company=company, url="http://127.0.0.1:9/hook", event_types=["*"])
    event = customer_event(company)  # no worker runs: no delivery exists, the event waits for its fan-out
    assert Client().get("/health").status_code == 200
    Event.objects.filter(pk=event.pk).update(created_at=timezone.now() - timedelta(minutes=20))

    response = Client().get("/health")

    assert response.status_code == 503
    queue = response.json()["checks"]["workerQueue"]
    assert queue["ok"] is False and "run_worker" in queue["error"]


@pytest.mark.django_db
def test_metrics_without_a_token_answer_nobody_not_even_loopback(settings):
    settings.METRICS_TOKEN, settings.METRICS_ALLOW_LOOPBACK = None, False
    refused = Client(REMOTE_ADDR="127.0.0.1").get("/metrics")
    assert refused.status_code == 403 and "METRICS_TOKEN" in refused.json()["message"]


@pytest.mark.django_db
@pytest.mark.parametrize("proxy_header", ["HTTP_X_FORWARDED_FOR", "HTTP_FORWARDED", "HTTP_X_REAL_IP"])
def test_metrics_opened_to_loopback_on_purpose_refuse_others_and_proxied_callers(settings, proxy_header):
    settings.METRICS_TOKEN, settings.METRICS_ALLOW_LOOPBACK = None, True
    assert Client(REMOTE_ADDR="127.0.0.1").get("/metrics").status_code == 200
    assert Client(REMOTE_ADDR="10.1.2.3").get("/metrics").status_code == 403
    # A proxy on this machine forwards from 127.0.0.1: a forwarded request is not local.
    assert Client(REMOTE_ADDR="127.0.0.1").get("/metrics", **{proxy_header: "203.0.113.9"}).status_code == 403


@pytest.mark.django_db
def test_metrics_with_a_token_need_it_from_everyone(settings):
    settings.METRICS_TOKEN = TOKEN
    assert Client(REMOTE_ADDR="127.0.0.1").get("/metrics").status_code == 403
    assert Client(REMOTE_ADDR="10.1.2.3").get("/metrics", HTTP_AUTHORIZATION="Bearer wrong").status_code == 403
    assert Client(REMOTE_ADDR="10.1.2.3").get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}").status_code == 200


@pytest.mark.django_db
def test_metrics_show_latencies_charges_by_status_and_the_delivery_backlog(company, settings, fresh_metrics):
    bank_txn(company, status="Pending")
    bank_txn(company, status="Pending")
    bank_txn(company, status="HELD")
    _due_delivery(company, settings, waiting=timedelta(seconds=90))
    client = Client()
    client.get("/health")
    text = client.get("/metrics").content.decode()
    assert 'vault_charges{status="Pending"} 2.0' in text and 'vault_charges{status="HELD"} 1.0' in text
    assert 'vault_webhook_deliveries_pending{state="due"} 1.0' in text
    age = next(line for line in text.splitlines() if line.startswith("vault_webhook_oldest_due_delivery_age_seconds"))
    assert 90 <= float(age.split()[1]) < 200
    assert 'django_http_requests_latency_seconds_by_view_method_bucket{le="0.01",method="GET",view="health"}' in text
    assert "vault_metrics_database_up 1.0" in text
    assert "vault_tasks_running_past_lease 0.0" in text


@pytest.mark.django_db
def test_metrics_count_task_rows_left_running_past_their_lease(settings, fresh_metrics):
    settings.TASK_LEASE_SECONDS = 60
    row = DBTaskResult.objects.get(pk=deliver_webhooks.enqueue().id)
    row.claim("dead-worker")
    DBTaskResult.objects.filter(pk=row.pk).update(started_at=timezone.now() - timedelta(seconds=61))
    text = Client().get("/metrics").content.decode()
    assert "vault_tasks_running_past_lease 1.0" in text


def _get(port: int, path: str) -> httpx.Response:
    return httpx.get(f"http://127.0.0.1:{port}{path}", headers={"Host": "localhost"}, timeout=30)


def _wait_until_serving(port: int, server: subprocess.Popen) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        assert server.poll() is None, server.stderr.read().decode()[-3000:]
        try:
            _get(port, "/health")
            return
        except httpx.TransportError:
            time.sleep(0.5)
    raise AssertionError("gunicorn did not answer within 120 s")


@pytest.mark.postgres
@pytest.mark.django_db
def test_health_and_metrics_of_a_service_whose_database_stops(tmp_path):
    cluster = ThrowawayCluster()
    cluster.start()
    listener = socket.socket()
    server = None
    try:
        db = connection.settings_dict
        cluster.load_schema_of(f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}")
        listener.bind(("127.0.0.1", 0))
        listener.set_inheritable(True)
        port = listener.getsockname()[1]
        env = {
            "PATH": os.environ.get("PATH", ""),
            "DEBUG": "1",
            "VAR_DIR": str(tmp_path / "var"),
            "DATABASE_URL": cluster.url,
            "WEB_CONCURRENCY": "1",
            "METRICS_CACHE_SECONDS": "0",
            "METRICS_ALLOW_LOOPBACK": "1",
            "LOG_FORMAT": "json",
        }
        server = subprocess.Popen(  # noqa: S603 - fixed arguments
            [sys.executable, "-m", "gunicorn", "--config", "gunicorn.conf.py", "--bind", f"fd://{listener.fileno()}"],
            cwd=Path(django_settings.BASE_DIR),
            env=env,
            pass_fds=[listener.fileno()],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        _wait_until_serving(port, server)
        healthy = _get(port, "/health")
        assert healthy.status_code == 200, healthy.text
        assert "vault_metrics_database_up 1.0" in _get(port, "/metrics").text

        cluster.stop()

        down = _get(port, "/health")
        assert down.status_code == 503
        body = down.json()
        assert body["status"] == "unavailable" and body["checks"]["database"]["ok"] is False
        assert body["checks"]["database"]["error"]
        metrics = _get(port, "/metrics")
        assert metrics.status_code == 200 and "vault_metrics_database_up 0.0" in metrics.text
        server.terminate()
        out, err = server.communicate(timeout=30)
        # LOG_FORMAT=json: every line gunicorn and the service wrote is one JSON object.
        text = (out + err).decode()
        lines = [json.loads(line) for line in text.splitlines() if line.strip()]
        assert any("/health" in line["message"] and line["logger"] == "gunicorn.access" for line in lines)
        assert any(line["logger"] == "monitoring.metrics" and line["level"] == "WARNING" for line in lines)
    finally:
        if server is not None and server.poll() is None:
            server.terminate()
            server.wait(timeout=30)
        listener.close()
        try:
            cluster.stop()
        except RuntimeError:
            pass  # already stopped
        cluster.remove()


def _scraped(settings, name: str, *, ran: tuple[str, ...] = ("settle", "mark_final")) -> dict[str, float]:
    """The series of the commands that ran (every scheduled one has a line: one that never ran counts from the
    install, which is after these tests' dates)."""
    settings.METRICS_TOKEN, settings.METRICS_CACHE_SECONDS = TOKEN, 0
    text = Client().get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}").content.decode()
    prefix = f'{name}{{command="'
    found = {
        line[len(prefix) :].split('"')[0]: float(line.split()[-1])
        for line in text.splitlines()
        if line.startswith(prefix)
    }
    return {command: value for command, value in found.items() if command in ran}


@pytest.mark.django_db
def test_metrics_say_which_scheduled_command_missed_a_day_it_was_due(settings):
    with time_machine.travel(datetime(2026, 11, 19, 22, 20, tzinfo=UTC), tick=False):  # Thursday 17:20 Eastern
        for command in ("settle", "mark_final"):
            call_command(command, stdout=io.StringIO())
    with pytest.raises(CommandError):
        call_command("transmit_files", stdout=io.StringIO())  # no bank connection set up: a failed run
    ran_at = datetime(2026, 11, 19, 22, 20, tzinfo=UTC).timestamp()
    assert _scraped(settings, "vault_command_last_success_timestamp_seconds") == {
        "settle": ran_at,
        "mark_final": ran_at,
    }

    with time_machine.travel(datetime(2026, 11, 20, 14, 0, tzinfo=UTC), tick=False):  # Friday morning: none missed
        assert _scraped(settings, "vault_command_days_missed") == {"settle": 0, "mark_final": 0}
    with time_machine.travel(datetime(2026, 11, 23, 15, 0, tzinfo=UTC), tick=False):  # Monday: Friday's settle missed
        assert _scraped(settings, "vault_command_days_missed") == {"settle": 1, "mark_final": 3}


@pytest.mark.django_db
def test_a_holidays_settle_is_not_missed(settings):
    with time_machine.travel(datetime(2026, 11, 25, 22, 20, tzinfo=UTC), tick=False):  # the eve of Thanksgiving
        call_command("settle", stdout=io.StringIO())
    with time_machine.travel(datetime(2026, 11, 27, 14, 0, tzinfo=UTC), tick=False):  # Friday after it
        assert _scraped(settings, "vault_command_days_missed", ran=("settle",)) == {"settle": 0}


def _timer_jobs() -> dict[str, list[str]]:
    """Each timer's job (the command its vault-command@ instance runs, or import_returns for the import unit's
    script) and its OnCalendar lines."""
    jobs = {}
    for path in (Path(django_settings.BASE_DIR) / "deploy" / "systemd").glob("*.timer"):
        text = path.read_text()
        (unit,) = re.findall(r"^Unit=(\S+)$", text, flags=re.M)
        job = re.fullmatch(r"vault-command@(\w+)\.service", unit)
        jobs[job[1] if job else {"vault-import-returns.service": "import_returns"}[unit]] = re.findall(
            r"^OnCalendar=(.*)$", text, flags=re.M
        )
    return jobs


def test_every_timers_job_is_counted_by_days_missed_on_the_days_its_timer_runs():
    """Newcomer review 2026-12-07 O9: the two Django jobs and the import unit were left out."""
    project_apps = {"accounts", "bank", "config", "customers", "events", "mandates", "reporting"}
    project_apps |= {"schedules", "transactions", "backoffice", "sampledata", "monitoring", "vault", "payments"}
    project_apps |= {"reconciliation"}
    scheduled = {
        name
        for name, app in get_commands().items()
        if app in project_apps and isinstance(load_command_class(app, name), ScheduledCommand)
    }
    jobs = _timer_jobs()
    assert set(jobs) == set(SCHEDULED_COMMANDS)
    assert scheduled == set(SCHEDULED_COMMANDS) - {"import_returns"}  # the script records itself (record_run)
    for job, calendar in jobs.items():
        weekdays_only = all(line.startswith("Mon..Fri ") for line in calendar)
        assert (SCHEDULED_COMMANDS[job] is is_business_day) == weekdays_only, job


@pytest.mark.django_db
@pytest.mark.parametrize("host", ["127.0.0.1:8000", "[::1]:8000", "localhost", "10.0.0.7:8000"])
def test_health_answers_a_probe_by_loopback_or_probe_host_that_allowed_hosts_leaves_out(settings, host):
    """Newcomer review 2026-12-07 O1: the runbook's env file (ALLOWED_HOSTS=api.example.com) and its own
    `curl -fsS http://127.0.0.1:8000/health` answered a bare 400."""
    settings.ALLOWED_HOSTS, settings.HEALTH_PROBE_HOSTS = ["api.example.com"], ["10.0.0.7"]
    response = Client(HTTP_HOST=host).get("/health")
    assert response.status_code == 200, response.content
    assert response.json()["status"] == "ok"


@pytest.mark.django_db
@pytest.mark.parametrize(("path", "host"), [("/health", "203.0.113.9"), ("/customers", "127.0.0.1:8000")])
def test_a_host_allowed_hosts_leaves_out_is_a_400_that_says_so(settings, path, host):
    """Only /health makes the exception, and only for a probe's host; every other answer names the host."""
    settings.ALLOWED_HOSTS, settings.HEALTH_PROBE_HOSTS = ["api.example.com"], ["10.0.0.7"]
    response = Client(HTTP_HOST=host).get(path)
    assert response.status_code == 400
    body = response.json()
    assert body["errors"][0]["code"] == "host_not_allowed" and "data" in body
    assert host.split(":")[0] in body["message"] and "ALLOWED_HOSTS" in body["message"]
    assert Client(HTTP_HOST="api.example.com").get("/health").status_code == 200


@pytest.mark.django_db
def test_a_refused_metrics_scrape_answers_in_the_error_envelope(settings):
    """Newcomer review 2026-12-07 O11: the 403 had no `data` and `errors`."""
    settings.METRICS_TOKEN = TOKEN
    body = Client().get("/metrics", HTTP_AUTHORIZATION="Bearer wrong").json()
    assert body["data"] is None and body["errors"][0]["code"] == "forbidden"
