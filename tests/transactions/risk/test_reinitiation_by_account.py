"""CONTRACT 12 "Re-initiation covers the account, not the amount" (ACH review 2026-12-02 N3 and N5): for 180 days
after an R01 or R09 any new debit from the company to that account, whatever its amount, is 409
reinitiation_requires_retry unless it is the retry route; that account and a blocked one are the same account with
or without leading zeros. The review's out_20261209 sample showed 123.46, 60.00 and 63.45 sent beside the RETRY PYMT
of a returned 123.45, and 088880001 debited after R02 on 88880001: read back from the files, neither goes out now."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests import factories
from tests.transactions.ach import nacha_reader
from tests.transactions.ach.conftest import run
from tests.transactions.risk.test_account_rules import ONE_OFF, charge, refused, returned
from transactions.models import Transaction
from transactions.sandbox.bank_files import return_file_for
from vault import crypto

# The returns are written at fixed instants of 2026-12-08 and the new debits at the clock's time: the 180 days of
# re-initiation count between them, so the clock is pinned to that day.
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("ordinary_banking_day")]

# Thursday 10:00 Eastern, after the Tuesday returns: every charge made today is due by then.
LATER = "2031-01-09T15:00:00Z"


def _method(company, number: str):
    customer = factories.CustomerFactory(company=company, first_name="Ada", last_name="Lovelace")
    return factories.PaymentMethodFactory(customer=customer, account_number=number, routing_number="021000021")


def _sent(at: str = LATER) -> list[nacha_reader.ReadEntry]:
    summary = run("originate", "--at", at)
    return [
        entry
        for path in summary["files"]
        for batch in nacha_reader.read(Path(path).read_text()).batches
        for entry in batch.entries
    ]


@pytest.mark.parametrize("amount", [12346, 12344, 6000, 6345, 1], ids=["+1c", "-1c", "split-a", "split-b", "1c"])
@pytest.mark.parametrize("saved", [True, False], ids=["saved-method", "one-off"])
def test_after_r01_a_debit_of_any_amount_to_the_account_is_409(api_client, company, tmp_path, amount, saved):
    method = _method(company, ONE_OFF["accountNumber"])
    first = returned(method, "R01", tmp_path, amount=12345)
    count = Transaction.objects.count()

    body = refused(
        charge(api_client, method=method if saved else None, amount=amount), 409, "reinitiation_requires_retry"
    )

    assert (body["data"]["transactionUuid"], body["data"]["returnCode"]) == (str(first.uuid), "R01")
    assert body["errors"][0]["field"] == ("paymentMethodUuid" if saved else "paymentDetails.accountNumber")
    assert Transaction.objects.count() == count


def test_after_r01_only_the_retry_goes_out(api_client, company, tmp_path):
    method = _method(company, ONE_OFF["accountNumber"])
    first = returned(method, "R01", tmp_path, amount=12345)
    for amount in (12346, 6000, 6345):
        assert charge(api_client, method=method, amount=amount).status_code == 409
    retry = api_client.post(f"/transactions/{first.uuid}/retry")
    assert retry.status_code == 201, retry.content
    # One debit, one return: under return_rate_minimum_debits the return-rate program holds nothing.
    assert retry.json()["data"]["status"] == "Pending"

    (entry,) = _sent("2026-12-10T15:00:00Z")  # within the 180 days a re-presentment may be sent in

    assert (entry.amount, entry.account.strip()) == (12345, ONE_OFF["accountNumber"])


@pytest.mark.parametrize(
    ("returned_as", "debited_as"),
    [("88880001", "088880001"), ("088880001", "88880001"), ("088880001", "0088880001"), ("000123456789", "123456789")],
)
@pytest.mark.parametrize("saved", [True, False], ids=["saved-method", "one-off"])
def test_leading_zeros_do_not_make_another_account_after_r01(
    api_client, company, tmp_path, returned_as, debited_as, saved
):
    first = returned(_method(company, returned_as), "R09", tmp_path)
    debited = _method(company, debited_as) if saved else None

    body = refused(
        charge(api_client, method=debited, details=ONE_OFF | {"accountNumber": debited_as}),
        409,
        "reinitiation_requires_retry",
    )

    assert body["data"]["transactionUuid"] == str(first.uuid)


@pytest.mark.parametrize(("blocked_as", "debited_as"), [("88880001", "088880001"), ("0088880001", "88880001")])
@pytest.mark.parametrize("saved", [True, False], ids=["saved-method", "one-off"])
def test_leading_zeros_do_not_get_past_an_account_block(api_client, company, tmp_path, blocked_as, debited_as, saved):
    returned(_method(company, blocked_as), "R02", tmp_path)
    debited = _method(company, debited_as) if saved else None

    refused(charge(api_client, method=debited, details=ONE_OFF | {"accountNumber": debited_as}), 409, "account_blocked")
    assert _sent() == []


def test_a_debit_accepted_before_the_block_is_declined_at_originate_whatever_its_zeros(api_client, company, tmp_path):
    waiting = charge(api_client, details=ONE_OFF | {"accountNumber": "088880001"}, amount=700)
    assert waiting.status_code == 201, waiting.content
    Transaction.objects.filter(uuid=waiting.json()["data"]["uuid"]).update(effective_date="2031-01-10")
    returned(_method(company, "88880001"), "R02", tmp_path)

    assert _sent() == []

    declined = Transaction.objects.get(uuid=waiting.json()["data"]["uuid"])
    assert declined.status == "DECLINED" and declined.failure_reason.startswith("account blocked after return R02")


def test_another_routing_number_is_another_account(api_client, company, tmp_path):
    returned(_method(company, "88880001"), "R02", tmp_path)
    other_bank = ONE_OFF | {"accountNumber": "088880001", "routingNumber": "011000015"}
    assert charge(api_client, details=other_bank).status_code == 201


def test_the_unpadded_hash_is_set_only_for_numbers_with_leading_zeros(api_client, company):
    method = _method(company, "0012345")
    plain = _method(company, "12345")
    assert method.unpadded_account_hash == crypto.account_number_hash("12345") == plain.account_number_hash
    assert plain.unpadded_account_hash is None
    made = charge(api_client, details=ONE_OFF | {"accountNumber": "0012345"}).json()["data"]
    assert Transaction.objects.get(uuid=made["uuid"]).unpadded_account_hash == crypto.account_number_hash("12345")


def test_a_notice_of_change_moves_the_unpadded_hash_with_the_number(api_client, company, tmp_path):
    method = _method(company, "000555666")
    txn = returned(method, "R01", tmp_path)  # any sent entry of the method; its return is beside the point
    path = tmp_path / "noc.ach"
    path.write_text(
        return_file_for([(txn, "C01", {"accountNumber": "777888999"})], at=datetime(2026, 12, 8, 13, tzinfo=UTC))
    )
    assert run("import_returns", str(path), "--at", "2026-12-08T14:00:00Z")["notices"] == 1
    method.refresh_from_db()
    assert (method.account_number, method.unpadded_account_hash) == ("777888999", None)
