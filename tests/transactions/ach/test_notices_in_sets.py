"""A notice-of-change file corrects its saved methods in sets (payments.services.MethodCorrections): what each
notice does is what it did one at a time, in file order, also when notices of one customer move methods through
each other's accounts, and the statements do not grow with the notices."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from events.models import Event
from tests import factories
from tests.transactions.ach.conftest import MONDAY_MORNING, bank_txn, run, saved_method_txn, statements_counted
from transactions.models import ChangeNotice, Transaction
from transactions.sandbox.bank_files import return_file_for
from vault import crypto

pytestmark = pytest.mark.django_db

AT = "2026-12-08T14:00:00Z"
NEXT_WEEK = datetime(2026, 12, 15).date()


def _method(customer, account_number):
    return factories.PaymentMethodFactory(
        customer=customer, account_number=account_number, routing_number="021000021", account_type="Checking"
    )


def _noc_file(tmp_path, notices, name="nocs.ach"):
    """The notices' entries sent in a file, and the bank's notice file of them."""
    run("originate", "--at", MONDAY_MORNING)
    sent = [(Transaction.objects.get(pk=txn.pk), code, corrected) for txn, code, corrected in notices]
    path = tmp_path / name
    path.write_text(return_file_for(sent, at=datetime(2026, 12, 8, 13, tzinfo=UTC)))
    return path


def _import(tmp_path, notices):
    return run("import_returns", str(_noc_file(tmp_path, notices)), "--at", AT)


def _accounts(*methods):
    for method in methods:
        method.refresh_from_db()
    return [method.account_number for method in methods]


def test_a_notice_onto_an_account_the_customer_already_saved_leaves_the_method_as_it_is(company, tmp_path):
    customer = factories.CustomerFactory(company=company)
    noticed, saved = _method(customer, "111111111"), _method(customer, "222222222")
    summary = _import(tmp_path, [(saved_method_txn(noticed), "C01", {"accountNumber": "222222222"})])

    assert summary["notices"] == 1  # recorded: the bank said it
    assert _accounts(noticed, saved) == ["111111111", "222222222"]
    assert ChangeNotice.objects.get().new_value == {"accountNumber": "****2222"}
    assert not Event.objects.filter(type="payment_method.updated").exists()


def test_notices_that_move_methods_through_each_others_accounts_apply_in_file_order(company, tmp_path):
    customer = factories.CustomerFactory(company=company)
    first, second = _method(customer, "111111111"), _method(customer, "222222222")
    entries = [saved_method_txn(first), saved_method_txn(second), saved_method_txn(first)]
    summary = _import(
        tmp_path,
        [
            (entries[0], "C01", {"accountNumber": "333333333"}),  # first leaves 1111 for a new account
            (entries[1], "C01", {"accountNumber": "111111111"}),  # second takes 1111, leaves 2222
            (entries[2], "C01", {"accountNumber": "222222222"}),  # first takes 2222: the two swapped
        ],
    )

    assert summary["notices"] == 3
    assert _accounts(first, second) == ["222222222", "111111111"]
    assert first.account_hash == crypto.account_pair_hash("021000021", "222222222")
    assert (first.last_four, second.last_four) == ("2222", "1111")
    updated = Event.objects.filter(type="payment_method.updated").order_by("pk")
    assert [(event.object_uuid, event.data["accountNumber"]) for event in updated] == [
        (first.uuid, "****3333"),
        (second.uuid, "****1111"),
        (first.uuid, "****2222"),
    ]


def test_a_notice_onto_an_account_another_notice_in_the_file_took_first_is_not_applied(company, tmp_path):
    customer = factories.CustomerFactory(company=company)
    first, second = _method(customer, "111111111"), _method(customer, "222222222")
    _import(
        tmp_path,
        [
            (saved_method_txn(first), "C01", {"accountNumber": "333333333"}),
            (saved_method_txn(second), "C01", {"accountNumber": "333333333"}),
        ],
    )

    assert _accounts(first, second) == ["333333333", "222222222"]


def test_a_name_notice_renames_the_methods_unsent_entries_and_nothing_else(company, tmp_path):
    customer = factories.CustomerFactory(company=company)
    method, other = _method(customer, "111111111"), _method(customer, "222222222")
    noticed = saved_method_txn(method)
    unsent = saved_method_txn(method, effective_date=NEXT_WEEK, is_same_day=False)
    other_unsent = saved_method_txn(other, effective_date=NEXT_WEEK, is_same_day=False)
    one_off = bank_txn(company, effective_date=NEXT_WEEK, name="Ada Lovelace")

    _import(tmp_path, [(noticed, "C04", {"name": "NEW NAME"})])

    names = dict(Transaction.objects.values_list("pk", "name"))
    assert (names[unsent.pk], names[other_unsent.pk], names[one_off.pk]) == ("NEW NAME", "Ada Lovelace", "Ada Lovelace")
    assert names[noticed.pk] == "Ada Lovelace"  # in a file already: what was sent stays as sent
    method.refresh_from_db()
    assert method.corrected_name == "NEW NAME"


def _statements(tmp_path, company, count, name):
    customer = factories.CustomerFactory(company=company)
    notices = []
    for n in range(count):
        method = _method(customer, f"4{n:08d}")
        notices.append((saved_method_txn(method), "C05", {"accountType": "Savings"}))
        notices.append((saved_method_txn(_method(customer, f"5{n:08d}")), "C04", {"name": f"HOLDER {n}"}))
    path = _noc_file(tmp_path, notices, name=name)
    with statements_counted() as statements:
        summary = run("import_returns", str(path), "--at", AT)
    assert summary["notices"] == 2 * count
    return len(statements)


def test_the_statements_of_a_notice_file_do_not_grow_with_its_notices(company, tmp_path):
    few = _statements(tmp_path, company, 2, "few.ach")
    Transaction.objects.update(status="Settled")  # out of the next file's way
    many = _statements(tmp_path, factories.CompanyFactory(), 6, "many.ach")

    assert many == few
