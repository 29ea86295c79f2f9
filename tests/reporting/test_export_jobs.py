"""N4: exports above CSV_EXPORT_SYNC_MAX_ROWS are made in the background. POST /reporting/exports -> 202, a
worker (run_worker) writes the file, GET /reporting/exports/{uuid} reports it, and its download is the same CSV
the streamed export gives, for an hour, to the company only."""

from __future__ import annotations

import os
from datetime import timedelta

import pytest
from django.utils import timezone
from django_tasks_db.models import DBTaskResult
from rest_framework.test import APIClient

from reporting.models import ReportExport
from reporting.tasks import report_export_build_task
from tests import factories
from tests.transactions.ach.conftest import run

pytestmark = pytest.mark.django_db

EXPORTS = "/reporting/exports"


@pytest.fixture
def three_rows(company):
    return [factories.TransactionFactory(company=company, amount=100 + n) for n in range(3)]


@pytest.fixture
def exports_dir(settings, tmp_path):
    settings.VAR_DIR = tmp_path
    return tmp_path / "exports"


def _run_worker() -> None:
    """What run_worker does with the queued tasks, run here (the worker's loop closes this test's connection)."""
    queued = DBTaskResult.objects.ready().filter(task_path=report_export_build_task.module_path)
    for result in queued:
        report_export_build_task.call(*result.args_kwargs["args"])
    queued.delete()


def _export(api_client, query: str, django_capture_on_commit_callbacks) -> dict:
    with django_capture_on_commit_callbacks(execute=True):
        response = api_client.post(f"{EXPORTS}?{query}")
    assert response.status_code == 202, response.content
    return response.json()["data"]


def _body(response) -> bytes:
    return b"".join(response.streaming_content)


def test_a_large_streamed_export_is_refused_with_the_route_to_use(api_client, three_rows, settings):
    settings.CSV_EXPORT_SYNC_MAX_ROWS = 2
    response = api_client.get("/reporting/transactions", {"format": "csv"})
    assert response.status_code == 409
    assert response.json()["errors"][0]["code"] == "export_too_large"
    assert response.json()["data"] == {"exports": "/reporting/exports"}
    settings.CSV_EXPORT_SYNC_MAX_ROWS = 3
    assert api_client.get("/reporting/transactions", {"format": "csv"}).status_code == 200


def test_a_background_export_is_the_streamed_csv_and_expires(
    api_client, three_rows, exports_dir, django_capture_on_commit_callbacks
):
    query = "amount:gt=100&columns=uuid,amount&sort=amount&sortDir=ASC"
    created = _export(api_client, query, django_capture_on_commit_callbacks)
    assert (created["status"], created["downloadUrl"], created["query"]) == ("queued", None, query)
    not_yet = api_client.get(f"{EXPORTS}/{created['uuid']}/download")
    assert (not_yet.status_code, not_yet.json()["errors"][0]["code"]) == (409, "export_not_ready")

    _run_worker()

    done = api_client.get(f"{EXPORTS}/{created['uuid']}").json()["data"]
    assert (done["status"], done["rowCount"]) == ("succeeded", 2)
    download = api_client.get(done["downloadUrl"])
    streamed = api_client.get(f"/reporting/transactions?format=csv&{query}")
    assert download.status_code == 200 and download["Content-Type"].startswith("text/csv")
    assert _body(download) == _body(streamed)
    (file,) = exports_dir.iterdir()
    assert oct(file.stat().st_mode & 0o777) == "0o600"

    ReportExport.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    assert api_client.get(f"{EXPORTS}/{created['uuid']}").json()["data"]["status"] == "expired"
    gone = api_client.get(done["downloadUrl"])
    assert (gone.status_code, gone.json()["errors"][0]["code"]) == (410, "export_expired")
    _export(api_client, "", django_capture_on_commit_callbacks)
    _run_worker()  # a worker purges expired files before each export
    assert not os.path.exists(file)


def test_an_export_whose_worker_died_is_built_when_its_task_comes_back(
    api_client, three_rows, exports_dir, django_capture_on_commit_callbacks, settings
):
    created = _export(api_client, "", django_capture_on_commit_callbacks)
    # A worker claimed it and died: the row stays RUNNING; tasks_reclaim hands the task out again after the lease.
    ReportExport.objects.update(status="running", started_at=timezone.now() - timedelta(seconds=30))
    settings.TASK_LEASE_SECONDS = 60
    report_export_build_task.call(ReportExport.objects.get().pk)
    assert api_client.get(f"{EXPORTS}/{created['uuid']}").json()["data"]["status"] == "running"  # within the lease

    settings.TASK_LEASE_SECONDS = 10
    report_export_build_task.call(ReportExport.objects.get().pk)

    done = api_client.get(f"{EXPORTS}/{created['uuid']}").json()["data"]
    assert (done["status"], done["rowCount"]) == ("succeeded", 3)


def test_purge_exports_deletes_expired_files_and_keeps_the_records(
    api_client, three_rows, exports_dir, django_capture_on_commit_callbacks
):
    created = _export(api_client, "", django_capture_on_commit_callbacks)
    _run_worker()
    (file,) = exports_dir.iterdir()
    assert run("purge_exports") == {"exportFiles": 0} and file.exists()

    ReportExport.objects.update(expires_at=timezone.now() - timedelta(seconds=1))

    assert run("purge_exports") == {"exportFiles": 1}
    assert not file.exists()
    assert api_client.get(f"{EXPORTS}/{created['uuid']}").json()["data"]["status"] == "expired"


def test_another_companys_export_is_404(
    api_client, other_api_client, three_rows, exports_dir, django_capture_on_commit_callbacks
):
    created = _export(api_client, "", django_capture_on_commit_callbacks)
    _run_worker()
    assert other_api_client.get(f"{EXPORTS}/{created['uuid']}").status_code == 404
    assert other_api_client.get(f"{EXPORTS}/{created['uuid']}/download").status_code == 404
    assert api_client.get(f"{EXPORTS}/{created['uuid']}/download").status_code == 200


@pytest.mark.parametrize(
    ("query", "field"), [("nosuchfilter=1", "nosuchfilter"), ("amount:gt=abc", "amount"), ("sort=nope", "sort")]
)
def test_bad_export_parameters_are_400_and_queue_nothing(api_client, query, field):
    response = api_client.post(f"{EXPORTS}?{query}")
    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == field
    assert not ReportExport.objects.exists()


def test_export_routes_need_view_reports(company, anonymous_client):
    scoped = factories.issue_api_key(company, actions=["ViewTransactions"])
    anonymous_client.credentials(HTTP_AUTHORIZATION=scoped.authorization)
    assert anonymous_client.post(EXPORTS).status_code == 403
    assert APIClient().post(EXPORTS).status_code == 401
