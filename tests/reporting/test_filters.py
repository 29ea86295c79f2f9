"""The filter grammar, table-driven from the registry: every field x every condition, misfits, bad values, widths.

Each field gets three rows: A (low value), B (high value) and, when the field can be absent, C (null: column null
or related row missing; or "" for text columns that are never null). Expected matches follow SQL/PostgREST null
semantics: a null satisfies only `null`."""

from __future__ import annotations

import json
import uuid
from datetime import date, datetime

import pytest
from django.db.models import CharField
from django.db.models.fields.related import ForeignObjectRel, RelatedField

from reporting.registry import ALL, BY_FILTER, CONDITIONS, FIELDS, FieldType
from tests.reporting.conftest import build_transaction, ids_of, report
from transactions.models import Transaction

pytestmark = pytest.mark.django_db

# (A, B) values per filter where the generic ones do not fit the column.
VALUES = {
    "method": ("ACH", "RTP"),
    "type": ("Credit", "Debit"),
    "status": ("Pending", "Settled"),
    "standardentryclasscode": ("CCD", "WEB"),
    "returncode": ("R01", "R02"),
    "changecode": ("C01", "C02"),
    "panfirstsix": ("411111", "555555"),
    "panlastfour": ("1111", "2222"),
    "accounttype": ("Checking", "Savings"),
    "routingnumber": ("011401533", "021000021"),
    "entrydescription": ("PAYMENT", "PURCHASE"),
    "purpose": ("bill", "goods"),
    "validationstatus": ("failed", "validated"),
    "finality": ("available", "final"),
}
GENERIC = {
    FieldType.STRING: ("Alpha Zulu", "Bravo Yankee"),
    FieldType.INTEGER: (1000, 5000),
    FieldType.TIMESTAMP: (
        datetime.fromisoformat("2026-01-10T10:00:00+00:00"),
        datetime.fromisoformat("2026-03-10T10:00:00+00:00"),
    ),  # fmt: skip
    FieldType.DATE: (date(2026, 1, 10), date(2026, 3, 10)),
    FieldType.BOOLEAN: (False, True),
    FieldType.JSON: ({"k": "alpha"}, {"k": "bravo"}),
}
AUTO_PATHS = {"id", "batch_id", "settlement_id", "late_return_settlement_id", "return_entry__id"}
SKIP = {"companyuuid", "companyname", "accountnumber"}  # company-level and encrypted: their own tests below
FILTERS = [f for f in FIELDS if f.filter and f.filter not in SKIP]


def _final_field(path: str):
    model, nullable = Transaction, False
    parts = path.split("__")
    for part in parts[:-1]:
        field = model._meta.get_field(part)
        nullable = nullable or isinstance(field, ForeignObjectRel) or field.null
        model = field.related_model
    field = model._meta.get_field(parts[-1])
    if isinstance(field, RelatedField):
        nullable = nullable or field.null
    return field, nullable or field.null


def _absent_kind(path: str) -> str | None:
    """'null' when a row can lack the value, 'blank' when it holds "" instead, None when every row has one."""
    field, nullable = _final_field(path)
    if nullable:
        return "null"
    if isinstance(field, CharField):
        return "blank"
    return None


def _query_value(value) -> str:
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%dT%H:%M:%SZ")
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return json.dumps(value)
    return str(value)


def _dataset(company, f):
    """Rows A, B (and C) for field f; returns their ids and the stored values of A and B."""
    if f.path in AUTO_PATHS or f.type == FieldType.ID:
        a_value = b_value = None
    elif f.type == FieldType.UUID:
        a_value, b_value = sorted([uuid.uuid4(), uuid.uuid4()])
    else:
        a_value, b_value = VALUES.get(f.filter) or GENERIC[f.type]
    a = build_transaction(company, {f.path: a_value})
    b = build_transaction(company, {f.path: b_value})
    kind = _absent_kind(f.path)
    c = None
    if kind == "blank":
        c = build_transaction(company, {f.path: ""})
    elif kind == "null":
        c = build_transaction(company, {f.path: None} if "__" not in f.path and not f.path.endswith("_id") else {})
    stored = dict(Transaction.objects.filter(pk__in=[a.pk, b.pk]).values_list("pk", f.path))
    return a.pk, b.pk, (c.pk if c else None), kind, stored[a.pk], stored[b.pk]


def _expected(condition: str, f, a: int, b: int, c: int | None, kind: str | None) -> set[int]:
    blank = {c} if kind == "blank" else set()
    null = {c} if kind == "null" else set()
    return {
        "eq": {a},
        "neq": {b} | blank,
        "gt": {b},
        "gte": {a, b},
        "lt": {a} | blank,
        "lte": {a, b} | blank,
        "nn": {a, b} | blank,
        "null": null,
        "empty": blank,
        "like": {a},
        "in": {a, b},
        "between": {a, b},
    }[condition]


def _condition_value(condition: str, f, a_value, b_value) -> str:
    qa, qb = _query_value(a_value), _query_value(b_value)
    if condition in ("lt", "lte"):
        return qb
    if condition in ("in", "between"):
        return f"{qa},{qb}"
    if condition == "like":
        text = qa if f.type != FieldType.JSON else "alpha"
        return text[len(text) // 2 :].swapcase()
    return qa


@pytest.mark.parametrize("name", [f.filter for f in FILTERS])
def test_every_condition_on_field(api_client, company, name):
    """Table-driven: for this field, every condition that fits its type, and a bare `field=value` (eq)."""
    f = BY_FILTER[name]
    a, b, c, kind, a_value, b_value = _dataset(company, f)
    for condition in CONDITIONS[f.type]:
        response = report(api_client, **{f"{name}:{condition}": _condition_value(condition, f, a_value, b_value)})
        assert ids_of(response) == _expected(condition, f, a, b, c, kind), condition
    assert ids_of(report(api_client, **{name: _query_value(a_value)})) == {a}


def _null_source(f) -> str:
    return "join" if "__" in f.path else "column"


# One nullable field per (type, null source: a null column or a missing joined row); the table above already
# checks the null row of every field.
NULLABLE = list({(f.type, _null_source(f)): f for f in FILTERS if _absent_kind(f.path) == "null"}.values())


@pytest.mark.parametrize("name", [f.filter for f in NULLABLE])
def test_every_condition_on_a_null(api_client, company, name):
    """Only `null` matches a null value; neq, like, in, between and the rest are false on it (SQL, PostgREST)."""
    f = BY_FILTER[name]
    _, _, c, _, a_value, b_value = _dataset(company, f)
    for condition in CONDITIONS[f.type]:
        raw = _condition_value(condition, f, a_value, b_value)
        matched = ids_of(report(api_client, **{f"{name}:{condition}": raw}))
        assert (c in matched) == (condition == "null"), condition


@pytest.mark.parametrize("name", [f.filter for f in FIELDS if f.filter])
def test_conditions_that_do_not_fit_the_type_are_400_naming_the_field(api_client, company, name):
    misfits = [condition for condition in ALL if condition not in CONDITIONS[BY_FILTER[name].type]]
    for condition in misfits:
        response = report(api_client, **{f"{name}:{condition}": "1"})
        assert response.status_code == 400, condition
        body = response.json()
        assert body["errors"][0]["field"] == name
        assert name in body["message"]


BAD_VALUES = {
    FieldType.INTEGER: ["abc", "1.5", "", "99999999999999999999"],
    FieldType.ID: ["abc", "7x"],
    FieldType.TIMESTAMP: ["yesterday", "2026-13-01", "2026-01-01T10:00:00", "2026-01-01 10:00:00Z", "2026-02-30"],
    FieldType.DATE: ["2026-1-1", "soon"],
    FieldType.BOOLEAN: ["yes", "1", ""],
    FieldType.UUID: ["not-a-uuid", "1234"],
    FieldType.JSON: ["{bad", ""],
}


@pytest.mark.parametrize("name", [f.filter for f in FIELDS if f.filter and f.type in BAD_VALUES])
def test_unparsable_value_is_400_naming_the_field(api_client, company, name):
    for value in BAD_VALUES[BY_FILTER[name].type]:
        for condition in ("eq", "in"):
            if condition not in CONDITIONS[BY_FILTER[name].type]:
                continue
            response = report(api_client, **{f"{name}:{condition}": value})
            assert response.status_code == 400, (condition, value, response.content)
            assert response.json()["errors"][0]["field"] == name


@pytest.mark.parametrize("name", [f.filter for f in FIELDS if f.filter and f.width])
def test_over_wide_string_is_400_naming_the_field(api_client, company, name):
    f = BY_FILTER[name]
    if f.type == FieldType.STRING:
        assert report(api_client, **{name: "1" * f.width}).status_code == 200
    for condition in ("eq", "in", "like"):
        wide = "1" * (f.width + 1)
        response = report(api_client, **{f"{name}:{condition}": f"1,{wide}" if condition == "in" else wide})
        assert response.status_code == 400, condition
        assert response.json()["errors"][0]["field"] == name


def test_unknown_parameter_is_400_invalid_filter(api_client, company):
    response = report(api_client, colour="red")
    assert response.status_code == 400
    assert response.json()["message"] == "invalid filter"
    assert response.json()["errors"][0]["field"] == "colour"


def test_unknown_condition_is_400_naming_the_field(api_client, company):
    response = report(api_client, **{"amount:about": "5"})
    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == "amount"


def test_filter_names_and_conditions_are_case_insensitive(api_client, build):
    small, big = build(amount=100), build(amount=900)
    assert ids_of(report(api_client, **{"AMOUNT:GT": "500"})) == {big.pk}
    assert ids_of(report(api_client, **{"Amount:Lt": "500"})) == {small.pk}


def test_both_spellings_of_late_return_settlement_uuid(api_client, build):
    txn = build({"late_return_settlement__uuid": uuid.uuid4()})
    build()
    value = str(txn.late_return_settlement.uuid)
    assert ids_of(report(api_client, latereturnsettmentuuid=value)) == {txn.pk}
    assert ids_of(report(api_client, latereturnsettlementuuid=value)) == {txn.pk}


def test_in_takes_at_most_100_values(api_client, build):
    txn = build(amount=7)
    assert ids_of(report(api_client, **{"amount:in": ",".join(str(n) for n in range(1, 101))})) == {txn.pk}
    response = report(api_client, **{"amount:in": ",".join(str(n) for n in range(1, 102))})
    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == "amount"


def test_between_needs_two_values_and_is_inclusive(api_client, build):
    low, mid, high = build(amount=100), build(amount=200), build(amount=300)
    assert ids_of(report(api_client, **{"amount:between": "100,300"})) == {low.pk, mid.pk, high.pk}
    assert ids_of(report(api_client, **{"amount:between": "101,299"})) == {mid.pk}
    assert report(api_client, **{"amount:between": "100"}).status_code == 400
    assert report(api_client, **{"amount:between": "1,2,3"}).status_code == 400


def test_like_is_case_insensitive_substring_with_literal_wildcards(api_client, build):
    percent = build(name="100% Cotton_Co")
    plain = build(name="1000 Cottonwood")
    assert ids_of(report(api_client, **{"name:like": "0% cotton_"})) == {percent.pk}
    assert ids_of(report(api_client, **{"name:like": "COTTON"})) == {percent.pk, plain.pk}
    assert ids_of(report(api_client, **{"name:like": "_"})) == {percent.pk}


def test_nn_null_and_empty_ignore_the_value(api_client, build):
    with_return = build({"return_entry__return_code": "R01"})
    without = build()
    assert ids_of(report(api_client, **{"returncode:nn": "anything at all"})) == {with_return.pk}
    assert ids_of(report(api_client, **{"returncode:null": "R01"})) == {without.pk}
    blank = build(external_unique_id="")
    build(external_unique_id="ext-1")
    assert blank.pk in ids_of(report(api_client, **{"externaluniqueid:empty": "ignored"}))


def test_repeated_filters_all_apply(api_client, build):
    build(amount=100)
    mid = build(amount=200)
    build(amount=300)
    assert ids_of(report(api_client, **{"amount:gt": "100", "amount:lt": "300"})) == {mid.pk}


def test_date_only_value_on_a_timestamp_covers_the_utc_day(api_client, build):
    early = build(created_at=datetime.fromisoformat("2026-02-01T00:00:00+00:00"))
    late = build(created_at=datetime.fromisoformat("2026-02-01T23:59:59+00:00"))
    before = build(created_at=datetime.fromisoformat("2026-01-31T23:59:59+00:00"))
    after = build(created_at=datetime.fromisoformat("2026-02-02T00:00:00+00:00"))
    assert ids_of(report(api_client, createdat="2026-02-01")) == {early.pk, late.pk}
    assert ids_of(report(api_client, **{"createdat:gt": "2026-02-01"})) == {after.pk}
    assert ids_of(report(api_client, **{"createdat:lte": "2026-02-01"})) == {before.pk, early.pk, late.pk}
    assert ids_of(report(api_client, **{"createdat:between": "2026-01-31,2026-02-01"})) == {
        before.pk,
        early.pk,
        late.pk,
    }
    assert ids_of(report(api_client, **{"createdat:gte": "2026-02-01T23:59:59Z"})) == {late.pk, after.pk}


def test_accountnumber_equality_goes_through_the_keyed_hash(api_client, build):
    mine = build(account_number="000123456789")
    other = build(account_number="000987654321")
    card = build(account_number=None, account_number_hash="", account_last_four="", method="CRD")
    assert ids_of(report(api_client, accountnumber="000123456789")) == {mine.pk}
    assert ids_of(report(api_client, **{"accountnumber:neq": "000123456789"})) == {other.pk}
    assert ids_of(report(api_client, **{"accountnumber:in": "000123456789,000987654321"})) == {mine.pk, other.pk}
    assert ids_of(report(api_client, **{"accountnumber:eq": "6789"})) == set()
    assert ids_of(report(api_client, **{"accountnumber:null": ""})) == {card.pk}
    assert ids_of(report(api_client, **{"accountnumber:nn": ""})) == {mine.pk, other.pk}


@pytest.mark.parametrize(
    ("fragment", "matches_mine"),
    [("6789", True), ("****6789", True), ("*6789", True), ("78", True), ("**67", True), ("*****6789", False),
     ("*78", False), ("123456789", False), ("5555", False)],
)  # fmt: skip
def test_accountnumber_like_matches_the_masked_form(api_client, build, fragment, matches_mine):
    mine = build(account_number="000123456789")
    build(account_number="000987654321")
    build(account_number=None, account_number_hash="", account_last_four="", method="CRD")
    matched = ids_of(report(api_client, **{"accountnumber:like": fragment}))
    assert (mine.pk in matched) == matches_mine
    assert len(matched) == int(matches_mine)


def test_company_filters_match_own_company_only(api_client, company, other_company, build):
    txn = build()
    assert ids_of(report(api_client, companyname=company.name.upper())) == set()
    assert ids_of(report(api_client, **{"companyname:like": company.name.upper()})) == {txn.pk}
    assert ids_of(report(api_client, companyuuid=str(company.uuid))) == {txn.pk}
    assert ids_of(report(api_client, companyuuid=str(other_company.uuid))) == set()
