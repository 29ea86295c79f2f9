"""`make install` compiles the project's modules (the Makefile's `bytecode`): the deployed units run with a read-only
/srv/vault (deploy/systemd, ProtectSystem=strict), where Python cannot write bytecode, so a module it leaves out is
compiled again at every start of every command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Every module under the checkout that the lifecycle commands import, whose bytecode is missing or older than its
# source (the pyc header's mtime and size, as the import system checks them).
NOT_COMPILED = """
import importlib.util, json, os, struct, sys
import django
django.setup()
import transactions.management.commands.import_returns, transactions.management.commands.originate
import transactions.management.commands.settle

def current(source):
    cached = importlib.util.cache_from_source(source)
    if not os.path.exists(cached):
        return False
    with open(cached, "rb") as pyc:
        _magic, flags, mtime, size = struct.unpack("<4sIII", pyc.read(16))
    stat = os.stat(source)
    return flags == 0 and mtime == int(stat.st_mtime) & 0xFFFFFFFF and size == stat.st_size & 0xFFFFFFFF

root = os.getcwd() + os.sep
sources = [getattr(module, "__file__", None) for module in list(sys.modules.values())]
ours = [source for source in sources if source and source.startswith(root) and os.sep + ".venv" + os.sep not in source]
print(json.dumps({"imported": len(ours), "notCompiled": sorted(s for s in ours if not current(s))}))
"""


def test_make_bytecode_compiles_every_module_a_command_imports():
    # -o: the venv counts as installed (a worktree shares its checkout's).
    make = ["make", "-s", "-o", ".venv/.installed", "bytecode"]
    subprocess.run(make, cwd=ROOT, check=True, timeout=120)  # noqa: S603 - the project's own Makefile
    environment = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "DJANGO_SETTINGS_MODULE": "config.settings"}
    run = subprocess.run(  # noqa: S603 - this interpreter, our own script
        [sys.executable, "-c", NOT_COMPILED], cwd=ROOT, env=environment, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr[-2000:]
    found = json.loads(run.stdout.strip().splitlines()[-1])
    assert found["imported"] > 100  # the project's apps, not just manage.py's neighbours
    assert found["notCompiled"] == []
