"""The import unit's script (deploy/import-returns.sh, newcomer review 2026-12-02 N6): any file name is imported,
oldest first; a refused file goes to quarantine/ with its reason and the next file is imported; a database outage
leaves every file where it is for the next run."""

from __future__ import annotations

import os
import socket
import subprocess
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from tests.transactions.ach.conftest import return_csv
from transactions.models import IngestionFile

ROOT = Path(settings.BASE_DIR)
SCRIPT = ROOT / "deploy" / "import-returns.sh"


def _run(inbox: Path, database_url: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "DEBUG": "1", "DATABASE_URL": database_url, "VAULT_PYTHON": str(Path(os.sys.executable))}
    env.pop("REPORTING_DATABASE_URL", None)
    return subprocess.run(  # noqa: S603 - our own script
        [str(SCRIPT), str(inbox)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )


def _inbox(tmp_path: Path, files: dict[str, str]) -> Path:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    for age, (name, text) in enumerate(files.items()):
        path = inbox / name
        path.write_text(text)
        os.utime(path, (1_700_000_000 + age, 1_700_000_000 + age))  # oldest first, in this order
    return inbox


def _test_database_url() -> str:
    s = connection.settings_dict
    return f"postgres://{s['USER']}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_any_name_is_imported_and_a_refused_file_is_quarantined_with_its_reason(tmp_path):
    unmatched = return_csv(["return,021000020000001,R01,,,"])
    inbox = _inbox(
        tmp_path,
        {
            "bank file 1.csv": unmatched,
            "it's refused.csv": "not a return file\n",
            "-3 dashes and $(spaces).csv": return_csv(["return,021000020000002,R03,,,"]),
        },
    )

    result = _run(inbox, _test_database_url())

    assert result.returncode == 1, result.stderr
    assert result.stderr.count("refused, moved to quarantine/") == 1 and "left in place" not in result.stderr, (
        result.stderr
    )
    assert sorted(path.name for path in (inbox / "done").iterdir()) == [
        "-3 dashes and $(spaces).csv",
        "bank file 1.csv",
    ]
    quarantined = inbox / "quarantine"
    assert sorted(path.name for path in quarantined.iterdir()) == ["it's refused.csv", "it's refused.csv.reason"]
    reason = (quarantined / "it's refused.csv.reason").read_text()
    assert reason.startswith("CommandError: it's refused.csv: ") and len(reason.splitlines()) == 1
    assert [path for path in inbox.iterdir() if path.is_file()] == []
    assert sorted(IngestionFile.objects.values_list("filename", flat=True)) == [
        "-3 dashes and $(spaces).csv",
        "bank file 1.csv",
    ]
    assert result.stdout.count('"unmatched"') == 2  # each summary reaches the journal


def test_a_database_outage_leaves_every_file_in_the_inbox(tmp_path):
    inbox = _inbox(tmp_path, {"bank file 1.csv": return_csv(["return,021000020000001,R01,,,"]), "b.csv": "x\n"})
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]

    result = _run(inbox, f"postgres://postgres@127.0.0.1:{closed_port}/vault")

    assert result.returncode == 1
    assert "left in place" in result.stderr and "database" in result.stderr
    assert sorted(path.name for path in inbox.iterdir() if path.is_file()) == ["b.csv", "bank file 1.csv"]
    assert list((inbox / "quarantine").iterdir()) == [] and list((inbox / "done").iterdir()) == []
