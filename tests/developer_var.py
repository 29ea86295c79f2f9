"""The developer's var/ (VAR_DIR: the demo key `make run` keeps, the dev secrets, the SQLite file) is theirs: no test
writes there. Every test gets a VAR_DIR of its own (conftest), and the session fails, naming the files, if anything
under the developer's VAR_DIR was added, changed or removed while it ran (newcomer review 2026-12-02 N2: a test
rewrote var/demo-api-key, and the next `make run` revoked the working demo key). A process a test starts with this
one's environment (a worker, gunicorn) gets a VAR_DIR of the session's own, holding a copy of the dev secrets, so
that it reads the test database's account numbers as this process does."""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from pathlib import Path

import pytest

_SEEN = pytest.StashKey[tuple[Path, dict[str, str]]]()


def developer_var_dir() -> Path:
    """VAR_DIR as config/settings.py read it from the environment at start, before this session replaced it."""
    from django.conf import settings

    return Path(_DEVELOPER_VAR_DIR or os.environ.get("VAR_DIR") or Path(settings.BASE_DIR) / "var")


_DEVELOPER_VAR_DIR: str | None = None


def var_digest(root: Path) -> dict[str, str]:
    """Each file under `root` by its path relative to it, with the SHA-256 of its content."""
    if not root.is_dir():
        return {}
    return {
        str(path.relative_to(root)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def var_changes(before: dict[str, str], after: dict[str, str]) -> list[str]:
    return [
        f"{name}: {'added' if name not in before else 'removed' if name not in after else 'changed'}"
        for name in sorted(before.keys() | after.keys())
        if before.get(name) != after.get(name)
    ]


def _is_xdist_worker(config) -> bool:
    return hasattr(config, "workerinput")  # the controlling process checks the whole run once


def pytest_sessionstart(session):
    global _DEVELOPER_VAR_DIR
    root = developer_var_dir()
    _DEVELOPER_VAR_DIR = str(root)
    own = Path(tempfile.mkdtemp(prefix="vault-test-var-"))
    if (root / "dev-secrets.json").is_file():
        shutil.copy2(root / "dev-secrets.json", own / "dev-secrets.json")
    os.environ["VAR_DIR"] = str(own)
    session.config.add_cleanup(lambda: shutil.rmtree(own, ignore_errors=True))
    if not _is_xdist_worker(session.config):
        session.config.stash[_SEEN] = (root, var_digest(root))


def pytest_sessionfinish(session, exitstatus):
    if _SEEN not in session.config.stash:
        return
    root, before = session.config.stash[_SEEN]
    changes = var_changes(before, var_digest(root))
    if changes:
        session.config.get_terminal_writer().line(
            f"\nthe test run changed the developer's {root} (a test must use settings.VAR_DIR, its own tmp_path):\n  "
            + "\n  ".join(changes),
            red=True,
        )
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
