"""A PostgreSQL cluster of the test's own, on a free loopback port, that the test may stop: the shared server on
5432 is never touched."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path


def _bin(name: str) -> str:
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=lambda p: int(p.parent.name))
    for folder in reversed(versions):
        if (folder / name).exists():
            return str(folder / name)
    found = shutil.which(name)
    if found is None:
        raise FileNotFoundError(name)
    return found


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _as_postgres(args: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *args] if os.geteuid() == 0 else args


class ThrowawayCluster:
    """In a folder of its own under the system temp dir (pytest's tmp_path is root's alone, closed to postgres)."""

    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="vault-throwaway-pg-"))
        self.data = self.folder / "data"
        self.port = _free_port()
        if os.geteuid() == 0:
            shutil.chown(self.folder, "postgres")
        self._run([_bin("initdb"), "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"])

    @property
    def url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, args: list[str]) -> None:
        done = subprocess.run(_as_postgres(args), capture_output=True, text=True, timeout=120, check=False)  # noqa: S603
        if done.returncode:
            raise RuntimeError(f"{args[0]} failed: {done.stderr.strip()[-2000:]}")

    def remove(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)

    def start(self) -> None:
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run([_bin("pg_ctl"), "-D", str(self.data), "-o", options, "-l", str(self.folder / "log"), "-w", "start"])

    def stop(self) -> None:
        self._run([_bin("pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop"])

    def load_schema_of(self, source_dsn: str) -> None:
        """Every table of `source_dsn` (the test database, already migrated), without rows."""
        schema = subprocess.run(  # noqa: S603
            [_bin("pg_dump"), "--schema-only", "--no-owner", source_dsn], check=True, capture_output=True, timeout=120
        ).stdout
        subprocess.run(  # noqa: S603
            [_bin("psql"), "-q", "-v", "ON_ERROR_STOP=1", self.url],
            input=schema,
            check=True,
            capture_output=True,
            timeout=120,
        )
