"""N2 (newcomer review 2026-12-02): the test suite leaves the developer's var/ alone, so `make run` after
`make test` still answers with the same demo key."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command

from tests.developer_var import developer_var_dir, var_changes, var_digest


@pytest.mark.django_db
def test_bootstrap_demo_in_a_test_keeps_its_key_in_the_tests_own_var_dir(debug_mode):
    before = var_digest(developer_var_dir())

    call_command("bootstrap_demo", stdout=io.StringIO())

    assert (Path(settings.VAR_DIR) / "demo-api-key").is_file()
    assert Path(settings.VAR_DIR) != developer_var_dir()
    assert var_changes(before, var_digest(developer_var_dir())) == []


def test_the_session_check_names_every_file_added_changed_or_removed(tmp_path):
    (tmp_path / "demo-api-key").write_text("vk_test_old")
    (tmp_path / "vault.sqlite3").write_text("db")
    (tmp_path / "sandbox").mkdir()
    (tmp_path / "sandbox" / "old.ach").write_text("1")
    before = var_digest(tmp_path)

    (tmp_path / "demo-api-key").write_text("vk_test_new")
    (tmp_path / "sandbox" / "old.ach").unlink()
    (tmp_path / "sandbox" / "new.ach").write_text("2")

    assert var_changes(before, var_digest(tmp_path)) == [
        "demo-api-key: changed",
        "sandbox/new.ach: added",
        "sandbox/old.ach: removed",
    ]
    assert json.dumps(var_changes(before, before)) == "[]"
