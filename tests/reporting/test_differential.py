"""Random filter combinations over a seeded dataset, checked against the same rows filtered in plain Python."""

from __future__ import annotations

import random
import uuid
from datetime import UTC, date, datetime

import pytest

from reporting.registry import BY_FILTER, CONDITIONS, FieldType
from sampledata.seeding import seed_transactions
from tests.reporting.conftest import report
from transactions.models import Transaction

pytestmark = pytest.mark.django_db

FIELDS = [
    "amount", "status", "method", "type", "name", "createdat", "effectivedate", "issameday", "isduplicate",
    "returncode", "returnreason", "settlementnumericid", "batchnumericid", "externaluniqueid", "standardentryclasscode",
    "panfirstsix", "changecode", "holdreason", "releasedat", "latereturnedat", "accountnumber", "numericid",
    "category", "routingnumber",
]  # fmt: skip
SLOW_COMBOS = 70


def _parse(f, raw):
    if f.type in (FieldType.INTEGER, FieldType.ID):
        return int(raw)
    if f.type == FieldType.TIMESTAMP:
        return datetime.strptime(raw, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    if f.type == FieldType.DATE:
        return date.fromisoformat(raw)
    if f.type == FieldType.BOOLEAN:
        return raw == "true"
    if f.type == FieldType.UUID:
        return uuid.UUID(raw)
    return raw


def _matches(f, condition, raw, value) -> bool:
    """SQL semantics in Python: a null satisfies only `null`."""
    if condition == "null":
        return value is None
    if value is None:
        return False
    if condition == "nn":
        return True
    if condition == "empty":
        return value == ""
    if condition == "like":
        return raw.lower() in str(value).lower()
    if condition == "in":
        return value in {_parse(f, part) for part in raw.split(",")}
    if condition == "between":
        low, high = (_parse(f, part) for part in raw.split(","))
        return low <= value <= high
    x = _parse(f, raw)
    return {
        "eq": value == x, "neq": value != x, "gt": value > x, "gte": value >= x, "lt": value < x, "lte": value <= x,
    }[condition]  # fmt: skip


def _text(f, value) -> str:
    if isinstance(value, datetime):
        return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@pytest.fixture
def dataset(company, other_company):
    seed_transactions(company=company, count=300, seed=42)
    seed_transactions(company=other_company, count=40, seed=43)
    paths = {name: BY_FILTER[name].path for name in FIELDS if name != "accountnumber"}
    rows = []
    for txn in Transaction.objects.filter(company=company).select_related():
        values = dict(Transaction.objects.filter(pk=txn.pk).values(*paths.values()).get())
        row = {name: values[path] for name, path in paths.items()}
        # The reference for accountnumber is the decrypted number and its masked form.
        row["accountnumber"] = txn.account_number
        rows.append(row)
    return rows


def _account_matches(condition, raw, number) -> bool:
    if condition == "null":
        return number is None
    if number is None:
        return False
    if condition == "like":
        return raw.lower() in f"****{number[-4:]}"
    return {"eq": number == raw, "neq": number != raw, "in": number in raw.split(","), "nn": True,
            "empty": False}[condition]  # fmt: skip


def _random_filter(rng, rows):
    name = rng.choice(FIELDS)
    f = BY_FILTER[name]
    condition = rng.choice([c for c in CONDITIONS[f.type] if not (f.type == FieldType.TIMESTAMP and c == "eq")])
    present = [r[name] for r in rows if r[name] is not None]
    if not present and condition not in ("nn", "null", "empty"):
        condition = "nn"
    sample = (lambda: rng.choice(present)) if present else (lambda: None)
    if condition in ("nn", "null", "empty"):
        raw = ""
    elif condition == "like":
        text = str(sample() or "x")
        start = rng.randrange(len(text))
        raw = text[start : start + rng.randint(1, 4)].swapcase()
        if name == "accountnumber":
            raw = rng.choice(["****", "*", ""]) + str(sample() or "0000")[-4:][: rng.randint(1, 4)]
    elif condition in ("in", "between"):
        picks = sorted({_text(f, v) for v in (sample(), sample(), sample()) if v is not None}) or ["1"]
        if condition == "between":
            values = sorted((v for v in (sample(), sample()) if v is not None), key=lambda v: (v is None, v))
            picks = [_text(f, v) for v in values] if len(values) == 2 else ["1", "2"]
            if f.type in (FieldType.STRING,):
                picks = sorted(picks)
        raw = ",".join(picks)
    else:
        value = sample()
        raw = _text(f, value) if value is not None else "1"
        if f.type == FieldType.BOOLEAN:
            raw = rng.choice(["true", "false"])
    if f.type in (FieldType.INTEGER, FieldType.ID) and raw and condition not in ("like",):
        raw = ",".join(part if part.lstrip("-").isdigit() else "1" for part in raw.split(","))
    return name, condition, raw


def test_random_filter_combinations_match_python(api_client, dataset):
    rng = random.Random(2026)
    assert len(dataset) == 300
    for _ in range(SLOW_COMBOS):
        filters = [_random_filter(rng, dataset) for _ in range(rng.randint(1, 3))]
        params = {}
        for name, condition, raw in filters:
            params.setdefault(f"{name}:{condition}", []).append(raw)
        expected = set()
        for row in dataset:
            ok = True
            for name, condition, raw in filters:
                f = BY_FILTER[name]
                if name == "accountnumber":
                    ok = ok and _account_matches(condition, raw, row[name])
                else:
                    ok = ok and _matches(f, condition, raw, row[name])
            if ok:
                expected.add(row["numericid"])
        response = report(api_client, columns="numericId", **params)
        assert response.status_code == 200, (params, response.content)
        got = {r["numericId"] for r in response.json()["data"]}
        assert got == expected, params
        assert response.json()["meta"]["pagination"]["totalFilteredRows"] == len(expected)
