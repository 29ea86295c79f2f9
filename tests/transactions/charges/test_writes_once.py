"""`_writes_once` (transactions.charges.services) is the fast twin of the charge itself: before the charge runs it
predicts that the charge will lock nothing and write one statement, so that it may run without a transaction of its
own. Whatever the company's settings (each field of MerchantSettings moved off its default, drawn from the model,
so that a new setting is drawn too), the method, the direction, the payer and the amount, a charge that took that
path locked no row and wrote one statement outside a transaction: a rule that locks or writes without teaching the
predictor (`risk_assess_locks`, `web_debit_gate_writes`, `writes_when_accepted`, `mandate_asked`) fails here."""

from __future__ import annotations

import re

import pytest
from django.core.cache import caches
from django.db import connection, models
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from accounts.models import MerchantSettings
from accounts.selectors import api_key_cache_clear
from tests import factories
from tests.transactions.conftest import bank_details, card_details, put_charge
from transactions.charges import services, views
from transactions.methods import METHODS
from transactions.models import DebitHold

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

LOCKS = re.compile(r"\bFOR\s+(NO\s+KEY\s+)?UPDATE\b|\bFOR\s+(KEY\s+)?SHARE\b|pg_advisory", re.IGNORECASE)
WRITES = re.compile(r"^\s*(INSERT|UPDATE|DELETE)\b|\b(INSERT\s+INTO|DELETE\s+FROM)\b|\)\s*UPDATE\b", re.IGNORECASE)
CHARGE_ROW = 'INTO "transactions_transaction"'


def _off_default(field: models.Field) -> list:
    """The values of a setting other than its default that a rule may read differently: every other choice, the
    other boolean, and for a number none, a small one and a large one."""
    default = field.get_default()
    if field.choices:
        values = [value for value, _ in field.choices]
    elif isinstance(field, models.BooleanField):
        values = [True, False]
    elif isinstance(field, models.IntegerField):  # BigInteger, PositiveSmallInteger and the others
        values = [None] * field.null + [1, 30] + [10**9] * isinstance(field, models.BigIntegerField)
    else:
        values = []  # times and texts (cut-off, same-day windows) decide dates, not locks
    return [(field.name, value) for value in values if value != default]


SETTINGS = [
    field for field in MerchantSettings._meta.concrete_fields if not field.primary_key and not field.is_relation
]
DEFAULTS = {field.name: field.get_default() for field in SETTINGS}
CHANGES = [change for field in SETTINGS for change in _off_default(field)]
PLAIN_DEBIT = {"method": "ACH", "type": "Debit", "saved": True, "amount": 1500}
CHARGES = st.fixed_dictionaries(
    {
        "method": st.sampled_from(sorted(METHODS)),
        "type": st.sampled_from(["Debit", "Credit"]),
        "saved": st.booleans(),
        "amount": st.sampled_from([1500, 2_000_000]),
    }
)


@pytest.fixture
def merchant():
    """One company, its key, a customer and a saved bank account: each example sets the company's settings afresh."""
    company = factories.CompanyFactory()
    customer = factories.CustomerFactory(company=company)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=factories.issue_api_key(company).authorization)
    return company, customer, factories.PaymentMethodFactory(customer=customer), client


def _settings_set(company, changes: dict) -> None:
    MerchantSettings.objects.filter(company=company).update(**{**DEFAULTS, **changes})
    DebitHold.objects.filter(company=company).delete()
    if changes.get("has_debit_holds"):
        DebitHold.objects.create(company=company, reason="A return rate over its threshold.")
    api_key_cache_clear()  # authentication's copy of the company, settings included
    caches["local"].clear()


def _body(customer, saved, charge: dict) -> dict:
    body = {"method": charge["method"], "type": charge["type"], "amount": charge["amount"]}
    body["customerUuid"] = str(customer.uuid)
    if METHODS[charge["method"]].pays_by_card:
        return {**body, "paymentDetails": card_details()}
    body["paymentDetails"] = bank_details()  # SPEC 4.7 rule 2: a saved method's charge carries them too
    return {**body, "paymentMethodUuid": str(saved.uuid)} if charge["saved"] else body


def _statements(client: APIClient, body: dict) -> tuple[int, list[tuple[str, bool]]]:
    """The answer's status, and each statement the charge service ran (not the request's authentication) with
    whether it ran inside a transaction."""
    seen = []

    def watch(execute, sql, params, many, context):
        seen.append((sql, connection.in_atomic_block))
        return execute(sql, params, many, context)

    def watched(charge):
        with connection.execute_wrapper(watch):
            return charge_service(charge)

    charge_service = views.transaction_charge
    views.transaction_charge = watched
    try:
        status = put_charge(client, body).status_code
    finally:
        views.transaction_charge = charge_service
    return status, seen


def _one_statement_path(statements: list[tuple[str, bool]]) -> bool:
    """Whether the charge took the path `_writes_once` opens: its row written outside a transaction."""
    return any(
        CHARGE_ROW in sql.split("RETURNING")[0] and WRITES.search(sql) for sql, inside in statements if not inside
    )


def _charged(merchant, changes: dict, charge: dict) -> tuple[bool, list[str]]:
    """Whether the charge took the one-statement path, and what it did against that path's promises: a 5xx (Django
    refuses a row lock outside a transaction), a lock, or a second write outside a transaction."""
    company, customer, saved, client = merchant
    _settings_set(company, changes)
    status, statements = _statements(client, _body(customer, saved, charge))
    fast = _one_statement_path(statements)
    if status >= 500:
        return fast, [f"answered {status}"]
    if not fast:
        return False, []  # in a transaction of its own a charge may lock and write
    locks = [f"locks: {sql[:200]}" for sql, _ in statements if LOCKS.search(sql)]
    writes = [sql[:120] for sql, inside in statements if not inside and WRITES.search(sql)]
    return True, locks + [f"{len(writes)} writes outside a transaction: {writes}"] * (len(writes) > 1)


@settings(
    max_examples=20,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(changes=st.lists(st.sampled_from(CHANGES), min_size=1, max_size=2).map(dict), charge=CHARGES)
def test_a_charge_predicted_to_write_once_locks_nothing_and_writes_one_statement(merchant, changes, charge):
    assert not _charged(merchant, changes, charge)[1], (changes, charge)


# Every setting off its default is tried alone, on a saved debit and on a one-off credit (the directions the rules
# tell apart), besides what the draw above mixes.
for _name, _value in CHANGES:
    for _charge in (PLAIN_DEBIT, {**PLAIN_DEBIT, "type": "Credit", "saved": False}):
        test_a_charge_predicted_to_write_once_locks_nothing_and_writes_one_statement = example(
            changes={_name: _value}, charge=_charge
        )(test_a_charge_predicted_to_write_once_locks_nothing_and_writes_one_statement)


def test_a_plain_charge_takes_the_one_statement_path(merchant):
    """The property above is not empty: the plain charge takes the path it checks."""
    assert _charged(merchant, {}, PLAIN_DEBIT) == (True, [])


def test_a_rule_that_locks_without_telling_the_predictor_is_caught(merchant, monkeypatch):
    """A planted fault: the daily volume limit locks the company row, and a predictor that forgets it is caught."""
    monkeypatch.setattr(services, "risk_assess_locks", lambda **_: False)
    assert _charged(merchant, {"daily_volume_limit": 10**9}, PLAIN_DEBIT)[1]
