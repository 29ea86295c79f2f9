"""The systemd units and timers of deploy/systemd/ work as the runbook installs them (newcomer review 2026-12-02 N3-N5,
N7): every unit's command runs with the runbook's own /etc/vault/env and writes only inside its ReadWritePaths (or
its RuntimeDirectory), every timer starts a unit that exists, the runbook enables every unit and timer, and every
scheduled job is a timer. Generic: a unit or timer added to deploy/systemd/ is covered without a line here."""

from __future__ import annotations

import io
import json
import os
import re
import shlex
import signal
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import django.core.management
import pytest
from django.conf import settings
from django.db import connection

from bank.simulator import FROM_BANK, TO_BANK, RunningBank, bank_in_thread
from tests.transactions.ach.conftest import return_csv
from vault.envfile import env_file_parse

ROOT = Path(settings.BASE_DIR)
UNITS = ROOT / "deploy" / "systemd"
RUNBOOK = ROOT / "docs" / "operations.md"
INSTALLED_AT = PurePosixPath("/srv/vault")  # WorkingDirectory of every unit: this checkout in the test
# What a unit may write besides its ReadWritePaths: systemd makes these for it (RuntimeDirectory=, PrivateTmp=).
RUN = PurePosixPath("/run")
BANK_PASSWORD = "the-bank-gave-us-this"


def unit_file(path: Path) -> dict[str, dict[str, list[str]]]:
    """A unit file's sections, each key with every value it is given (systemd allows a key more than once)."""
    sections: dict[str, dict[str, list[str]]] = {}
    current: dict[str, list[str]] = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], {})
            continue
        key, _, value = line.partition("=")
        current.setdefault(key.strip(), []).append(value.strip())
    return sections


def _env_blocks() -> list[list[str]]:
    blocks = re.findall(r"```env\n(.*?)```", RUNBOOK.read_text(), flags=re.S)
    assert len(blocks) == 2, "docs/operations.md shows /etc/vault/env as an ```env block, and section 9 its bank lines"
    return [
        [line.strip() for line in block.splitlines() if line.strip() and not line.strip().startswith("#")]
        for block in blocks
    ]


def runbook_env_lines() -> list[str]:
    """The lines of the runbook's environment file: its install's ```env block."""
    return _env_blocks()[0]


def runbook_bank_lines() -> list[str]:
    """The lines section 9 adds to the file for the bank connection (the host key's line holds a space)."""
    return _env_blocks()[1]


def services() -> list[Path]:
    return sorted(UNITS.glob("*.service"))


def timers() -> list[Path]:
    return sorted(UNITS.glob("*.timer"))


def _started_unit(timer: Path) -> str:
    return unit_file(timer)["Timer"].get("Unit", [timer.with_suffix(".service").name])[0]


def _unit_path(name: str) -> Path:
    """vault-command@settle.service -> deploy/systemd/vault-command@.service."""
    template = re.sub(r"@[^.]*\.", "@.", name)
    return UNITS / template


@dataclass(frozen=True)
class UnitRun:
    name: str  # vault-command@settle.service, vault-web.service
    path: Path

    @property
    def instance(self) -> str:
        return self.name.split("@", 1)[1].rsplit(".", 1)[0] if "@" in self.name else ""


def units_to_run() -> list[UnitRun]:
    """Each service once, a template once per instance that a timer or the runbook starts (vault-worker@1 once)."""
    names = {_started_unit(timer) for timer in timers()}
    names |= {
        f"vault-command@{command}.service" for command in re.findall(r"vault-command@([a-z_]+)\b", RUNBOOK.read_text())
    }
    for service in services():
        if "@" not in service.name:
            names.add(service.name)
        elif not any(name.startswith(service.name.split("@")[0] + "@") for name in names):
            names.add(service.name.replace("@.", "@1."))
    return [UnitRun(name, _unit_path(name)) for name in sorted(names)]


def test_the_runbooks_env_file_is_key_value_lines_with_the_bank_lines_of_section_9():
    lines = runbook_env_lines() + runbook_bank_lines()
    assert lines and all(re.fullmatch(r"[A-Z][A-Z0-9_]*=\S.*", line) for line in lines), lines
    names = [line.split("=", 1)[0] for line in lines]
    assert {"DEBUG", "DATABASE_URL", "VAR_DIR", "ALLOWED_HOSTS"} <= set(names) and len(names) == len(set(names))
    assert {"BANK_SFTP_URL", "BANK_SFTP_HOST_KEY"} <= set(names)
    assert " " in dict(line.split("=", 1) for line in lines)["BANK_SFTP_HOST_KEY"]  # as ssh-keyscan shows it
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = doc.read_text()
        assert "export DEBUG=0" not in text and ". /etc/vault/env" not in text, f"{doc.name}: another env format"


def test_every_unit_reads_the_one_env_file_and_var_dir_lies_in_its_read_write_paths():
    var_dir = PurePosixPath(dict(line.split("=", 1) for line in runbook_env_lines())["VAR_DIR"])
    for service in services():
        section = unit_file(service)["Service"]
        assert section.get("EnvironmentFile") == ["/etc/vault/env"], service.name
        assert section.get("WorkingDirectory") == [str(INSTALLED_AT)], service.name
        writable = [PurePosixPath(path) for value in section.get("ReadWritePaths", []) for path in value.split()]
        assert section.get("ProtectSystem") == ["strict"], f"{service.name} sees the disk writable"
        assert any(var_dir.is_relative_to(path) for path in writable), f"{service.name}: VAR_DIR {var_dir} read-only"


def test_every_timer_starts_a_unit_that_exists_and_the_runbook_enables_every_unit_and_timer():
    runbook = RUNBOOK.read_text()
    for timer in timers():
        assert _unit_path(_started_unit(timer)).is_file(), f"{timer.name} starts {_started_unit(timer)}: no such unit"
        assert unit_file(timer)["Timer"].get("OnCalendar"), timer.name
        assert timer.name in runbook, f"docs/operations.md's table of what runs leaves out {timer.name}"
    assert "systemctl enable --now $(cd /srv/vault/deploy/systemd && ls *.timer)" in runbook  # every timer, enabled
    started = {_unit_path(_started_unit(timer)) for timer in timers()}
    for service in services():
        if service in started:
            continue
        enabled = service.name if "@" not in service.name else service.name.replace("@.", "@1.")
        assert enabled in runbook, f"docs/operations.md does not enable {service.name}"


def test_every_scheduled_job_is_a_timer_and_nothing_else_schedules_one():
    scheduled = {run.instance for run in units_to_run() if run.instance}
    purges = {name for name in django.core.management.get_commands() if name.startswith("purge_")}
    missing = (purges | {"originate", "settle"}) - scheduled
    assert not missing, f"commands no timer runs: {sorted(missing)}"
    cron_line = re.compile(r"^\s*([\d*/,-]+\s+){5}\S", flags=re.M)
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        assert not cron_line.search(doc.read_text()), f"{doc.name} schedules a command outside the timers"


# Running every unit's command.


def _test_database_url() -> str:
    s = connection.settings_dict
    password = f":{s['PASSWORD']}" if s.get("PASSWORD") else ""
    return f"postgres://{s['USER']}{password}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"


class Machine:
    """A unit's view of the machine under `root`: /srv/vault is this checkout, every other absolute path the runbook
    or a unit names (/srv/vault/var, /etc/vault, /run) lives under `root`."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, value: str) -> str:
        if value.startswith(str(INSTALLED_AT) + "/var") or not value.startswith(str(INSTALLED_AT)):
            return str(self.root / value.lstrip("/"))
        return str(ROOT / PurePosixPath(value).relative_to(INSTALLED_AT))

    def env_file(self, secrets: Path, bank: RunningBank | None = None) -> str:
        """The runbook's /etc/vault/env for this machine (section 9's bank lines pointed at `bank`), as written."""
        lines = []
        for line in runbook_env_lines() + (runbook_bank_lines() if bank else []):
            name, _, value = line.partition("=")
            if name.endswith("_FILE"):
                value = str(secrets / Path(value).name)
            elif value.startswith("/"):
                value = self.path(value)
            value = {"BANK_SFTP_URL": bank and bank.url(), "BANK_SFTP_HOST_KEY": bank and bank.host_key}.get(
                name
            ) or value
            lines.append(f"{name}={value}")
        lines.append(f"DATABASE_URL={_test_database_url()}")
        lines.append(f"DATABASE_POOL_MODE={settings.DATABASE_POOL_MODE}")  # behind pgbouncer (CI) the command must know
        return "".join(f"{line}\n" for line in lines)

    def env(self, unit: UnitRun, secrets: Path, bank: RunningBank | None = None) -> dict[str, str]:
        """What systemd gives the unit: the env file read as manage.sh reads it (vault/envfile.py), then its
        Environment= lines."""
        env = {"PATH": os.environ.get("PATH", ""), "PYTHONDONTWRITEBYTECODE": "1"}
        env.update(env_file_parse(self.env_file(secrets, bank)))
        for assignment in unit_file(unit.path)["Service"].get("Environment", []):
            name, _, value = assignment.partition("=")
            env[name] = self.path(value) if value.startswith("/") else value
        return env

    def writable(self, unit: UnitRun) -> list[Path]:
        section = unit_file(unit.path)["Service"]
        paths = [self.path(path) for value in section.get("ReadWritePaths", []) for path in value.split()]
        paths += [self.path(str(RUN / path)) for value in section.get("RuntimeDirectory", []) for path in value.split()]
        return [Path(path) for path in paths]


def _secrets(directory: Path) -> Path:
    from cryptography.fernet import Fernet

    directory.mkdir()
    for line in runbook_env_lines() + runbook_bank_lines():
        name, _, value = line.partition("=")
        if name.endswith("_FILE"):
            key = Fernet.generate_key().decode() if name.startswith("FIELD_ENCRYPTION") else "s" * 64
            key = BANK_PASSWORD if name == "BANK_SFTP_PASSWORD_FILE" else key
            (directory / Path(value).name).write_text(key + "\n")
    return directory


def _tree(root: Path) -> dict[str, int]:
    # .hypothesis: the example database hypothesis's tests write while they run (in the other CI lane or xdist worker)
    skipped = {".git", ".venv", "__pycache__", "node_modules", ".pytest_cache", ".ruff_cache", ".hypothesis"}
    found = {}
    for folder, names, files in os.walk(root):
        names[:] = [name for name in names if name not in skipped]
        if Path(folder) == ROOT and "var" in names:
            names.remove("var")  # the developer's var/: tests/developer_var.py watches it
        for name in files:
            path = Path(folder) / name
            try:
                found[str(path)] = path.stat().st_mtime_ns
            except FileNotFoundError:
                continue
    return found


def _argv(unit: UnitRun, machine: Machine) -> list[str]:
    (command,) = unit_file(unit.path)["Service"]["ExecStart"]
    words = shlex.split(command.lstrip("-@+!:").replace("%i", unit.instance))
    program = machine.path(words[0])
    if program.endswith("/.venv/bin/python"):
        program = sys.executable
    elif program.endswith("/.venv/bin/gunicorn"):
        return [str(Path(sys.executable).with_name("gunicorn")), *words[1:], "--check-config"]
    return [program, *words[1:]]


def _run(unit: UnitRun, root: Path, secrets: Path, bank: RunningBank) -> tuple[UnitRun, int, str, list[str]]:
    """Runs the unit's command as systemd would (its user, env file, working directory), returns its exit status, its
    stderr and every path it added or changed outside what the unit may write."""
    machine = Machine(root)
    env = machine.env(unit, secrets, bank)
    for directory in machine.writable(unit):
        directory.mkdir(parents=True, exist_ok=True)  # the installer makes /srv/vault/var; systemd the runtime ones
    inbox = Path(env["VAR_DIR"]) / "inbox"
    inbox.mkdir(parents=True, exist_ok=True)
    (inbox / "bank returns 1.csv").write_text(return_csv(["return,021000020000009,R01,,,"]))
    before = {**_tree(root), **_tree(ROOT)}
    argv = _argv(unit, machine)
    long_running = unit_file(unit.path)["Service"].get("Type", ["simple"]) != ["oneshot"] and "gunicorn" not in argv[0]
    process = subprocess.Popen(  # noqa: S603 - the unit's own command line
        argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    status = None
    if long_running:  # a worker: it must still be running after a while (then systemd's stop signal ends it)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.send_signal(signal.SIGTERM)
            status = 0
    _, stderr = process.communicate(timeout=240)
    status = process.returncode if status is None else status
    after = {**_tree(root), **_tree(ROOT)}
    allowed = machine.writable(unit)
    written = [path for path, mtime in after.items() if before.get(path) != mtime]
    outside = [path for path in written if not any(Path(path).is_relative_to(folder) for folder in allowed)]
    return unit, status, stderr, outside


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_every_unit_runs_its_command_with_the_runbooks_env_file_and_writes_only_where_it_may(tmp_path):
    """With section 9's bank lines too (the bank: the simulator), so fetch_bank_files logs in with the host key
    the file gives unquoted (newcomer review 2026-12-07 O2)."""
    runs = units_to_run()
    assert {"vault-web.service", "vault-worker@1.service", "vault-command@settle.service"} <= {r.name for r in runs}
    secrets = _secrets(tmp_path / "secrets")
    with bank_in_thread(tmp_path / "bank", password=BANK_PASSWORD) as bank, ThreadPoolExecutor(2) as pool:
        for folder in (TO_BANK, FROM_BANK):
            (tmp_path / "bank" / folder).mkdir(parents=True, exist_ok=True)
        results = list(pool.map(lambda run: _run(run, tmp_path / run.name, secrets, bank), runs))

    failed = {unit.name: stderr.strip()[-600:] for unit, status, stderr, _ in results if status != 0}
    assert failed == {}
    wrote_outside = {unit.name: outside for unit, _, _, outside in results if outside}
    assert wrote_outside == {}, "a unit wrote outside its ReadWritePaths/RuntimeDirectory"


def _manage_sh(env_file: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(  # noqa: S603 - our own script
        [str(ROOT / "deploy" / "manage.sh"), *args],
        env={"PATH": os.environ.get("PATH", ""), "VAULT_ENV_FILE": str(env_file), "VAULT_PYTHON": sys.executable},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_manage_sh_runs_a_command_with_the_env_file_as_the_units_read_it(tmp_path):
    """deploy/manage.sh, the runbook's way to run a command by hand, reads the same KEY=value file as systemd does,
    section 9's bank lines included: the host key's unquoted space made the shell that sourced it run the key as a
    command (exit 127, newcomer review 2026-12-07 O2); quoted, systemd takes the quotes off, and so does manage.sh."""
    machine = Machine(tmp_path / "machine")
    secrets = _secrets(tmp_path / "secrets")
    bank = RunningBank(bank=None, port=2222, host_key="ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOnlyATestKey")
    env_file = tmp_path / "env"
    written = machine.env_file(secrets, bank)
    assert f"BANK_SFTP_HOST_KEY={bank.host_key}\n" in written  # unquoted, as the runbook writes it
    show = "from django.conf import settings as s; print(s.BANK_SFTP_HOST_KEY); print(s.BANK_SFTP_PASSWORD)"
    for text in (written, written.replace(f"={bank.host_key}", f'="{bank.host_key}"')):
        env_file.write_text(text)
        result = _manage_sh(env_file, "shell", "--no-imports", "-c", show)
        assert result.returncode == 0, result.stderr
        assert result.stdout.splitlines() == [bank.host_key, BANK_PASSWORD]
    result = _manage_sh(env_file, "check", "--deploy", "--fail-level", "ERROR")
    assert result.returncode == 0, result.stderr
    assert "System check identified" in result.stdout + result.stderr


def test_manage_sh_evaluates_nothing_in_the_file(tmp_path):
    """No shell reads the file: a `$(...)` in a value is text, never a command."""
    marker = tmp_path / "ran"
    env_file = tmp_path / "env"
    env_file.write_text(f"DEBUG=1\nVAR_DIR={tmp_path / 'var'}\nSECRET_KEY=$(touch {marker}) `touch {marker}`\n")
    result = _manage_sh(
        env_file, "shell", "--no-imports", "-c", "from django.conf import settings as s; print(s.SECRET_KEY)"
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"$(touch {marker}) `touch {marker}`" and not marker.exists()


# What a first deployment needs, in the order the install does it (review N7: collectstatic, the database and its
# role, the first superuser and a merchant were missing).
FIRST_DEPLOYMENT = (
    "createuser vault",
    "createdb vault",
    "/etc/vault/env",
    "manage.sh migrate",
    "manage.sh collectstatic",
    "manage.sh check --deploy",
    "manage.sh createsuperuser",
    "vault-worker@1.service",
    "ls *.timer",
    "proxy_pass",
    "/health",
    "manage.sh create_company",
    "manage.sh create_api_key",
    "manage.sh create_staff_user",
    "roll back a release",
)


def test_the_runbooks_install_takes_every_first_deployment_step_in_order():
    runbook = RUNBOOK.read_text()
    install = runbook[runbook.index("1. Packages") :]
    places = [install.find(step) for step in FIRST_DEPLOYMENT]
    assert -1 not in places, [step for step, place in zip(FIRST_DEPLOYMENT, places, strict=True) if place < 0]
    assert places == sorted(places)


@pytest.mark.django_db
def test_the_runbooks_merchant_onboarding_lines_run_as_written():
    runbook = RUNBOOK.read_text().replace("\\\n", " ")  # a line continued on the next
    lines = re.findall(r"manage\.sh (create_\w+ [^#\n]*)", runbook)
    assert [line.split()[0] for line in lines][:3] == ["create_company", "create_api_key", "create_staff_user"]
    company = None
    for line in lines[:3]:
        args = shlex.split(line.replace("COMPANY_UUID", str(company)))
        out = io.StringIO()
        django.core.management.call_command(*args, stdout=out, stderr=io.StringIO())
        printed = json.loads(out.getvalue())
        company = company or printed["companyUuid"]
    assert printed["groups"] == ["Support"] and printed["companies"] == [company]
