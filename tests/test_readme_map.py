"""The README's map of the code ("Where things live", "How to add") names every package and only files that exist."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
MAP = README[README.index("## Where things live") :]
PACKAGES = sorted(path.parent.name for path in ROOT.glob("*/__init__.py") if path.parent.name != "tests")


def _section(title: str) -> str:
    start = MAP.index(title)
    end = MAP.find("\n## ", start + 1)
    return MAP[start : end if end > 0 else None]


def test_every_package_has_its_line():
    apps = _section("## Where things live").split("Inside `transactions/`")[0]
    rows = set(re.findall(r"^\| `(\w+)/` \| (?!\*\(planned\))", apps, re.MULTILINE))
    planned = set(re.findall(r"^\| `(\w+)/` \| \*\(planned\)\*", apps, re.MULTILINE))
    assert rows == set(PACKAGES)
    assert not planned & set(PACKAGES), "a package that exists is no longer planned: its row says what it holds"
    apps_contract = (ROOT / ".importlinter").read_text().split("[importlinter:contract:apps]")[1].split("\n[")[0]
    assert planned <= set(re.findall(r"\((\w+)\)", apps_contract)), "a planned home has its layer in `apps`"


def test_every_file_the_walkthroughs_name_exists():
    named = re.findall(r"`((?:\w+/)+\w+\.py)`", _section("## How to add"))
    assert named
    missing = [path for path in named if not (ROOT / path).exists() and not path.endswith("/fdn.py")]
    assert missing == []


def test_every_room_of_transactions_is_on_the_map():
    rooms = {path.name for path in (ROOT / "transactions").iterdir() if path.suffix == ".py" or path.is_dir()}
    rooms -= {"__init__.py", "apps.py", "migrations", "templates", "__pycache__"}
    mapped = set(re.findall(r"`(\w+(?:\.py|/))`", MAP))
    assert {room if room.endswith(".py") else f"{room}/" for room in rooms} <= mapped
