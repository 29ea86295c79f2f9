"""The layers of the house are import contracts (.importlinter, run by `make lint`): they hold on the code as it is;
every app is a layer of `apps` by its package name and has an exhaustive folder contract of its own; and an import
planted against the layers breaks the contract that names them: an upward import in every app and in every folder,
a module no layer lists in every folder, and the arrows the house once had. All planted in one copy of the tree,
read by one run of lint-imports."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from configparser import ConfigParser
from pathlib import Path

import pytest

pytestmark = pytest.mark.database_free

ROOT = Path(__file__).resolve().parent.parent
CONFIG_PATH = ROOT / ".importlinter"
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"
CONFIG = ConfigParser()
CONFIG.read(CONFIG_PATH)
ROOTS = CONFIG["importlinter"]["root_packages"].split()  # the apps, and the tests where they are layered
PACKAGES = [root for root in ROOTS if root != "tests"]
CONTRACTS = {
    name.split(":")[-1]: CONFIG[name] for name in CONFIG.sections() if name.startswith("importlinter:contract:")
}
FOLDER_CONTRACTS = sorted(key for key, contract in CONTRACTS.items() if "containers" in contract)


def _layers(contract: str) -> list[list[str]]:
    """Each layer of a layers contract, top first: its modules (the tails; a home made ready, in parentheses, too)."""
    rows = CONTRACTS[contract]["layers"].strip().splitlines()
    return [[tail.strip().strip("()") for tail in re.split(r"[|:]", row)] for row in rows]


def _existing(package: str, tails: list[str]) -> list[str]:
    return [tail for tail in tails if (ROOT / package / tail).exists() or (ROOT / package / f"{tail}.py").exists()]


# The arrows the house once had or was tempted by: (contract, importer, imported).
ARROWS = [
    ("apps", "payments.models", "transactions.models"),  # an app imports one above it
    ("apps", "accounts.services", "config.urls"),  # an app imports the project package
    ("apps", "reporting.records", "monitoring.metrics"),
    ("apps", "mandates.rules", "transactions.state"),  # the review's probe: mandates below transactions, whole
    ("apps", "nacha.reader", "transactions.models"),  # the format library knows the domain
    ("apps", "nacha.fields", "vault.errors"),  # the format library leans on the plumbing
    ("plumbing", "vault.crypto", "payments.models"),  # the plumbing knows a domain word
    ("plumbing", "events.types", "customers.models"),  # the outbox knows a domain
    ("transactions", "transactions.risk.limits", "transactions.charges.rules"),  # risk asks a charge
    ("transactions", "transactions.return_codes", "transactions.ach.matching"),  # the kernel knows a wing
    ("transactions", "transactions.charges.rules", "transactions.ach.returns"),  # a charge knows the ACH run
    ("transactions", "transactions.methods.base", "transactions.state"),  # a method knows the kernel
    ("transactions", "transactions.ach.matching", "transactions.admin"),  # a wing knows a door
    ("tests_nacha", "tests.nacha.test_writer", "transactions.models"),  # the library's tests need an app
    ("nacha", "nacha.fields", "nacha.entry_detail"),  # the fields know a record type
    ("nacha", "nacha.writer", "nacha.returns_writer"),  # the origination writer knows the RDFI's
    ("events", "events.outbox", "events.tasks"),  # the outbox wakes its worker by name: the old circle
    ("events", "events.delivery", "events.tasks"),  # the delivery loop imports the task that runs it
    ("reporting", "reporting.exports", "reporting.tasks"),  # an export's build queues itself
    ("bank", "bank.state", "bank.transmit"),  # the status table knows a run
    ("apps", "transactions.ach.returns", "bank.fetch"),  # the ACH wing knows what carries its files
    ("reporting", "reporting.kinds", "reporting.registry"),  # a field kind knows the field table
    ("reporting", "reporting.page", "reporting.stream"),  # a page knows the CSV export
]


def _upward_in_apps() -> list[tuple[str, str, str]]:
    """In every app below the top: its lowest module imports the top module of the nearest app above it."""
    arrows, above = [], None
    for row in _layers("apps"):
        present = [package for package in row if package in PACKAGES]
        for package in present if above else ():
            lowest = _existing(package, _layers(package)[-1])[0]
            arrows.append(("apps", f"{package}.{lowest}", above))
        if present:
            top = present[0]
            above = f"{top}.{_existing(top, _layers(top)[0])[0]}"
    return arrows


def _upward_in_folders() -> list[tuple[str, str, str]]:
    """In every folder: a module of its lowest layer imports one of its top layer."""
    arrows = []
    for contract in FOLDER_CONTRACTS:
        (container,) = CONTRACTS[contract]["containers"].split()
        layers = _layers(contract)
        low, high = _existing(container, layers[-1])[0], _existing(container, layers[0])[0]
        arrows.append((contract, f"{container}.{low}", f"{container}.{high}"))
    return arrows


PLANTED = ARROWS + _upward_in_apps() + _upward_in_folders()


def _lint(root: Path) -> subprocess.CompletedProcess:
    command = [str(LINT_IMPORTS), "--config", str(root / ".importlinter"), "--no-cache"]
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, timeout=120)  # noqa: S603


def _copy(tmp: Path) -> Path:
    for package in ROOTS:
        shutil.copytree(ROOT / package, tmp / package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(CONFIG_PATH, tmp / ".importlinter")
    return tmp


def _source(root: Path, module: str) -> Path:
    path = root.joinpath(*module.split("."))
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


def _broken_sections(output: str) -> dict[str, str]:
    """The report of each broken contract, by its id (each contract's name starts with its id and a colon)."""
    report = output[output.index("Broken contracts") :]
    starts = [(match.start(), match.group(1)) for match in re.finditer(r"^(\w+): ", report, re.MULTILINE)]
    ends = [start for start, _ in starts[1:]] + [len(report)]
    return {contract: report[start:end] for (start, contract), end in zip(starts, ends, strict=True)}


@pytest.fixture(scope="module")
def broken(tmp_path_factory) -> dict[str, str]:
    """One copy of the tree with every arrow of PLANTED and a module no layer lists in every folder, linted once."""
    root = _copy(tmp_path_factory.mktemp("planted"))
    for _contract, importer, imported in PLANTED:
        path = _source(root, importer)
        path.write_text(path.read_text() + f"\nimport {imported}  # noqa: E402, F401\n")
    for contract in FOLDER_CONTRACTS:
        (root / CONTRACTS[contract]["containers"].strip() / "probe_layer.py").write_text('"""On no layer."""\n')
    result = _lint(root)
    assert result.returncode == 1, result.stdout + result.stderr
    return _broken_sections(result.stdout)


def test_the_contracts_hold_on_the_code(tmp_path):
    result = _lint(_copy(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_every_package_is_an_app_on_the_map_with_an_exhaustive_folder_contract():
    folders = {path.parent.name for path in ROOT.glob("*/__init__.py")}
    assert folders == set(ROOTS), "every top-level package is a root package of .importlinter, and only they"
    on_the_map = {package for row in _layers("apps") for package in row}
    assert set(PACKAGES) <= on_the_map, "every app is a layer of `apps`, by its package name"
    assert all("." not in package for package in on_the_map), "a layer of `apps` names a package, never a module"
    for package in PACKAGES:
        contract = CONTRACTS.get(package)
        assert contract is not None, f"{package} has a folder contract of its own, [importlinter:contract:{package}]"
        assert contract["type"] == "layers" and contract["containers"].split() == [package]
        assert contract["exhaustive"] == "true", f"{package}: every module of the folder takes its place on a layer"
        assert contract["name"].startswith(f"{package}: ")


def test_the_format_librarys_tests_are_held_to_importing_no_app():
    assert set(CONTRACTS["tests_nacha"]["forbidden_modules"].split()) == set(PACKAGES) - {"nacha"}


def test_every_contract_is_named_by_its_id():
    assert all(contract["name"].startswith(f"{key}: ") for key, contract in CONTRACTS.items())


@pytest.mark.parametrize(("contract", "importer", "imported"), PLANTED, ids=[f"{a}-{b}" for _, a, b in PLANTED])
def test_each_planted_arrow_breaks_the_contract_that_names_its_layers(broken, contract, importer, imported):
    assert contract in broken, f"{contract} kept with {importer} -> {imported}"
    assert f" {importer} -> {imported} (l." in broken[contract]


@pytest.mark.parametrize("contract", FOLDER_CONTRACTS)
def test_a_module_on_no_layer_breaks_its_folder_contract(broken, contract):
    container = CONTRACTS[contract]["containers"].strip()
    assert "not listed as layers" in broken[contract]
    assert f"- {container}.probe_layer\n" in broken[contract]
