"""Account validations finish in sets (transactions.risk.account_validation._finish_many): a settle or a return file
that ends many validations writes each its own outcome (the method's state, the debits held for it) in statements
that do not grow with their number."""

from __future__ import annotations

import pytest

from events.models import Event
from tests import factories
from tests.transactions.ach.conftest import run, statements_counted
from tests.transactions.ach.test_account_validation import _eastern, _import, _method_state, _originate, _set_policy
from tests.transactions.conftest import put_charge, saved_charge
from transactions import calendar
from transactions.models import Transaction

pytestmark = pytest.mark.django_db


def _held_debits(api_client, company, count: int) -> list[tuple]:
    """`count` saved methods of the company, each with a debit held for its prenote: (method, held debit uuid)."""
    _set_policy(company, "prenote_first")
    company.merchant_settings.hold_debits_on_breach = False  # one return breaches every rate: not this test's subject
    company.merchant_settings.save(update_fields=["hold_debits_on_breach"])
    held = []
    for _ in range(count):
        method = factories.PaymentMethodFactory(customer=factories.CustomerFactory(company=company))
        data = put_charge(api_client, saved_charge(method.customer, method, amount=2500)).json()["data"]
        assert (data["status"], data["holdCode"]) == ("HELD", "VAL")
        held.append((method, data["uuid"]))
    return held


def _settle_statements(api_client, company, count: int) -> int:
    held = _held_debits(api_client, company, count)
    _read, day = _originate()
    with statements_counted() as statements:
        summary = run("settle", "--at", _eastern(calendar.add_business_days(day, 3), 9))
    assert summary["accountValidations"] == {"validated": count, "failed": 0}
    for method, uuid in held:
        assert _method_state(api_client, method)[:2] == ("validated", "prenote")
        assert Event.objects.filter(object_uuid=method.uuid, type="payment_method.updated").count() == 2
        txn = Transaction.objects.get(uuid=uuid)
        assert txn.status == "Pending" and txn.hold.released_at is not None
    return len(statements)


def test_settle_validates_many_prenotes_and_releases_their_debits_in_statements_that_do_not_grow(api_client, company):
    counts = []
    for methods in (1, 2, 5):  # the first day differs in what else it settles: compare the next two
        counts.append(_settle_statements(api_client, company, methods))
        Transaction.objects.filter(status="Pending").update(status="Settled")  # out of the next day's file

    assert counts[2] == counts[1]


def test_a_return_file_fails_one_prenote_and_validates_another_each_with_its_held_debit(api_client, company, tmp_path):
    (returned, returned_debit), (noticed, noticed_debit) = _held_debits(api_client, company, 2)
    _read, day = _originate()
    prenotes = {txn.payment_method_id: txn for txn in Transaction.objects.filter(account_validation__isnull=False)}

    summary = _import(
        tmp_path,
        [(prenotes[returned.pk], "R12", {}), (prenotes[noticed.pk], "C05", {"accountType": "Savings"})],
        _eastern(calendar.add_business_days(day, 1), 10),
    )

    assert (summary["returns"], summary["notices"]) == (1, 1)
    assert _method_state(api_client, returned)[:2] == ("failed", "prenote")
    assert _method_state(api_client, noticed)[:2] == ("validated", "prenote")
    declined, released = Transaction.objects.get(uuid=returned_debit), Transaction.objects.get(uuid=noticed_debit)
    assert (declined.status, declined.failure_reason) == ("DECLINED", "account validation failed")
    assert declined.hold.released_at is None
    assert released.status == "Pending" and released.hold.released_at is not None
