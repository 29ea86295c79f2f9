"""`make run` serves where GUNICORN_BIND says (newcomer review 2026-12-02 N17): the Makefile's gunicorn command line
names no --bind of its own, so gunicorn.conf.py's GUNICORN_BIND decides, as docs/configuration.md's table says."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from gunicorn.app.wsgiapp import WSGIApplication

ROOT = Path(settings.BASE_DIR)


def _make_run_gunicorn_argv() -> list[str]:
    """The gunicorn command `make run` would start, as make itself prints it (-n: nothing runs)."""
    printed = subprocess.run(
        ["make", "-n", "-o", "migrate", "run"],  # noqa: S607 - make from PATH, as the developer runs it
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    line = next(line for line in printed.splitlines() if "bin/gunicorn" in line)
    words = shlex.split(line[line.index("bin/gunicorn") :])
    return words[: words.index(";")] if ";" in words else words


@pytest.mark.parametrize("bind", ["127.0.0.1:8121", "0.0.0.0:9000"])
def test_make_run_serves_on_gunicorn_bind(monkeypatch, bind):
    argv = _make_run_gunicorn_argv()
    monkeypatch.setenv("GUNICORN_BIND", bind)
    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(sys, "argv", ["gunicorn", *argv[1:]])

    application = WSGIApplication("%(prog)s [OPTIONS] [APP_MODULE]")

    assert application.cfg.bind == [bind]


def test_make_run_without_gunicorn_bind_serves_on_8000(monkeypatch):
    monkeypatch.delenv("GUNICORN_BIND", raising=False)
    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(sys, "argv", ["gunicorn", *_make_run_gunicorn_argv()[1:]])

    assert WSGIApplication("%(prog)s [OPTIONS] [APP_MODULE]").cfg.bind == ["127.0.0.1:8000"]
