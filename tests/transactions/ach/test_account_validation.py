"""Account validation end to end (CONTRACT 11): the API starts it, `originate` sends its entries (read back from
the NACHA file), `settle`, returns and NOCs finish it, and the charge policy holds, releases or declines debits."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path

import pytest

from events.models import Event
from tests import factories
from tests.transactions.ach import nacha_reader
from tests.transactions.ach.conftest import run
from tests.transactions.conftest import bank_details, put_charge, saved_charge
from transactions import calendar
from transactions.models import AccountValidation, Transaction
from transactions.sandbox.bank_files import return_file_for

pytestmark = pytest.mark.django_db


def _url(method, suffix: str = "validate") -> str:
    return f"/customers/{method.customer.uuid}/payment-methods/{method.uuid}/{suffix}"


def _eastern(day: date, hour: int) -> str:
    moment = datetime.combine(day, time(hour), tzinfo=calendar.EASTERN).astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _validate(client, method, kind: str) -> dict:
    response = client.post(_url(method), {"method": kind}, format="json")
    assert response.status_code == 202, response.content
    return response.json()["data"]


def _originate() -> tuple[nacha_reader.ReadFile, date]:
    """Run `originate` at a time that sends what was just queued; the file as read back, and its processing day."""
    # Next-day by default: the queued entries are due on the processing day before their effective date at the latest.
    latest = Transaction.objects.filter(status="Pending").order_by("-effective_date").first()
    at = datetime.now(UTC)
    if latest is not None:
        at = max(
            at, datetime.combine(latest.effective_date, datetime.min.time(), tzinfo=calendar.EASTERN).replace(hour=10)
        )
    summary = run("originate", "--at", at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))
    (path,) = summary["files"]
    read = nacha_reader.read(Path(path).read_text())
    day = Transaction.objects.filter(batch__isnull=False).latest("batch_id").batch.effective_date
    return read, day


def _method_state(client, method) -> tuple[str, str | None, str | None]:
    data = client.get(f"/customers/{method.customer.uuid}/payment-methods/{method.uuid}").json()["data"]
    return data["validationStatus"], data["validationMethod"], data["validatedAt"]


def _import(tmp_path, entries, at: str) -> dict:
    path = tmp_path / f"returns-{len(list(tmp_path.iterdir()))}.ach"
    path.write_text(return_file_for(entries, at=datetime.fromisoformat(at.replace("Z", "+00:00"))))
    return run("import_returns", str(path), "--at", at)


@pytest.fixture
def customer(company):
    return factories.CustomerFactory(company=company, first_name="Ada", last_name="Lovelace")


@pytest.fixture
def method(customer):
    return factories.PaymentMethodFactory(customer=customer, account_number="000123456789", account_type="Savings")


def test_prenote_goes_out_at_zero_and_validates_after_three_banking_days(api_client, method):
    data = _validate(api_client, method, "prenote")
    assert (data["validationStatus"], data["validationMethod"], data["validatedAt"]) == ("pending", "prenote", None)

    read, day = _originate()
    (batch,) = read.batches
    (entry,) = batch.entries
    assert entry.transaction_code == "38"  # savings debit prenote
    assert entry.amount == 0 and entry.account == "000123456789"
    assert batch.sec == "WEB"

    run("settle", "--at", _eastern(calendar.add_business_days(day, 2), 23))
    assert _method_state(api_client, method)[0] == "pending"

    summary = run("settle", "--at", _eastern(calendar.add_business_days(day, 3), 9))
    assert summary["accountValidations"] == {"validated": 1, "failed": 0}
    status, kind, validated_at = _method_state(api_client, method)
    assert (status, kind) == ("validated", "prenote") and validated_at is not None
    assert run("settle", "--at", _eastern(calendar.add_business_days(day, 4), 9))["accountValidations"] == {
        "validated": 0,
        "failed": 0,
    }
    assert Event.objects.filter(object_uuid=method.uuid, type="payment_method.updated").count() == 2


def test_returned_prenote_fails_the_method(api_client, method, tmp_path):
    _validate(api_client, method, "prenote")
    _read, day = _originate()
    prenote = Transaction.objects.get(account_validation__isnull=False)

    summary = _import(tmp_path, [(prenote, "R03", {})], _eastern(calendar.add_business_days(day, 1), 10))

    assert summary["returns"] == 1
    assert _method_state(api_client, method) == ("failed", "prenote", None)
    assert AccountValidation.objects.get().failure_reason == "prenote returned"
    run("settle", "--at", _eastern(calendar.add_business_days(day, 5), 9))
    assert _method_state(api_client, method)[0] == "failed"


def test_prenote_noc_corrects_the_method_and_validates_it(api_client, method, tmp_path):
    _validate(api_client, method, "prenote")
    _read, day = _originate()
    prenote = Transaction.objects.get(account_validation__isnull=False)

    summary = _import(
        tmp_path, [(prenote, "C01", {"accountNumber": "5550001111"})], _eastern(calendar.add_business_days(day, 1), 10)
    )

    assert summary["notices"] == 1
    method.refresh_from_db()
    assert method.account_number == "5550001111"
    assert (method.validation_status, method.validation_method) == ("validated", "prenote")


def test_noc_changing_the_account_on_a_charge_resets_a_validated_method(api_client, method, tmp_path):
    method.validation_status, method.validation_method = "validated", "prenote"
    method.validated_at = datetime(2026, 1, 1, tzinfo=UTC)
    method.save()
    charge = put_charge(api_client, saved_charge(method.customer, method))
    assert charge.status_code == 201
    _read, day = _originate()
    txn = Transaction.objects.get(uuid=charge.json()["data"]["uuid"])

    _import(tmp_path, [(txn, "C02", {"routingNumber": "011401533"})], _eastern(calendar.add_business_days(day, 1), 10))

    assert _method_state(api_client, method) == ("unvalidated", None, None)


def test_noc_changing_only_the_account_type_keeps_the_validation(api_client, method, tmp_path):
    method.validation_status, method.validation_method = "validated", "prenote"
    method.validated_at = datetime(2026, 1, 1, tzinfo=UTC)
    method.save()
    txn_uuid = put_charge(api_client, saved_charge(method.customer, method)).json()["data"]["uuid"]
    _read, day = _originate()
    txn = Transaction.objects.get(uuid=txn_uuid)

    _import(tmp_path, [(txn, "C05", {"accountType": "Checking"})], _eastern(calendar.add_business_days(day, 1), 10))

    assert _method_state(api_client, method)[0] == "validated"


def _micro_amounts(batch: nacha_reader.ReadBatch) -> list[int]:
    credits = [entry.amount for entry in batch.entries if entry.transaction_code in nacha_reader.CREDIT_CODES]
    debits = [entry.amount for entry in batch.entries if entry.transaction_code in nacha_reader.DEBIT_CODES]
    assert len(credits) == 2 and all(0 < amount < 100 for amount in credits)
    assert debits == [sum(credits)]  # one offsetting debit, not more than the credits
    return credits


def test_microdeposits_go_out_with_acctverify_and_the_amounts_validate(api_client, method):
    data = _validate(api_client, method, "microdeposits")
    assert (data["validationStatus"], data["validationMethod"]) == ("pending", "microdeposits")

    read, _day = _originate()
    (batch,) = read.batches
    assert batch.description == "ACCTVERIFY" and batch.service_class == "200"
    assert {entry.transaction_code for entry in batch.entries} == {"32", "37"}
    first, second = _micro_amounts(batch)
    # The amounts are nowhere in the database in the clear.
    assert str(AccountValidation.objects.get().amounts_hash) not in (str(first), str(second))

    response = api_client.post(_url(method, "validate/confirm"), {"amounts": [second, first]}, format="json")

    assert response.status_code == 200, response.content
    data = response.json()["data"]
    assert (data["validationStatus"], data["validationMethod"]) == ("validated", "microdeposits")
    assert data["validatedAt"] is not None


def test_three_wrong_micro_deposit_answers_fail_the_method(api_client, method):
    _validate(api_client, method, "microdeposits")
    read, _day = _originate()
    first, second = _micro_amounts(read.batches[0])
    wrong = [first % 99 + 1, second]
    messages = []
    for _ in range(3):
        response = api_client.post(_url(method, "validate/confirm"), {"amounts": wrong}, format="json")
        assert response.status_code == 400
        assert response.json()["errors"][0]["field"] == "amounts"
        messages.append(response.json()["message"])
    assert messages[0].endswith("2 attempts left") and messages[1].endswith("1 attempt left")
    assert _method_state(api_client, method) == ("failed", "microdeposits", None)

    # Failed: even the right amounts do not validate it now.
    response = api_client.post(_url(method, "validate/confirm"), {"amounts": [first, second]}, format="json")
    assert response.status_code == 409


def test_micro_deposits_expire_after_ten_days(api_client, method):
    _validate(api_client, method, "microdeposits")
    validation = AccountValidation.objects.get()
    assert validation.expires_at - validation.created_at == timedelta(days=10)

    before = (validation.expires_at - timedelta(minutes=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert run("settle", "--at", before)["accountValidations"]["failed"] == 0
    after = (validation.expires_at + timedelta(minutes=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert run("settle", "--at", after)["accountValidations"]["failed"] == 1
    assert _method_state(api_client, method) == ("failed", "microdeposits", None)


def test_confirming_after_expiry_is_409_and_fails_the_method(api_client, method):
    _validate(api_client, method, "microdeposits")
    AccountValidation.objects.update(expires_at=datetime.now(UTC) - timedelta(seconds=1))

    response = api_client.post(_url(method, "validate/confirm"), {"amounts": [1, 2]}, format="json")

    assert response.status_code == 409
    assert _method_state(api_client, method)[0] == "failed"


def test_returned_micro_entry_fails_the_validation(api_client, method, tmp_path):
    _validate(api_client, method, "microdeposits")
    _read, day = _originate()
    credit = Transaction.objects.filter(account_validation__isnull=False, type="Credit").first()

    _import(tmp_path, [(credit, "R02", {})], _eastern(calendar.add_business_days(day, 1), 10))

    assert _method_state(api_client, method)[0] == "failed"
    # Micro-entries are ordinary entries: the return is recorded as any other (return monitoring counts it).
    credit.refresh_from_db()
    assert credit.status == "Returned" and credit.return_code == "R02"


# --- the charge policy -------------------------------------------------------------------------------------------


def _set_policy(company, policy: str) -> None:
    company.merchant_settings.account_validation = policy
    company.merchant_settings.save(update_fields=["account_validation"])


def test_prenote_first_holds_the_debit_sends_a_prenote_and_releases_it_once_validated(api_client, company, method):
    _set_policy(company, "prenote_first")

    response = put_charge(api_client, saved_charge(method.customer, method, amount=2500))

    assert response.status_code == 201
    data = response.json()["data"]
    assert (data["status"], data["holdCode"]) == ("HELD", "VAL")
    assert _method_state(api_client, method)[:2] == ("pending", "prenote")
    # A second debit waits on the same prenote.
    second = put_charge(api_client, saved_charge(method.customer, method, amount=2600)).json()["data"]
    assert second["status"] == "HELD"
    assert AccountValidation.objects.count() == 1

    read, day = _originate()
    assert [entry.amount for batch in read.batches for entry in batch.entries] == [0]  # only the prenote went out
    run("settle", "--at", _eastern(calendar.add_business_days(day, 3), 9))

    held = Transaction.objects.filter(uuid__in=[data["uuid"], second["uuid"]])
    assert {txn.status for txn in held} == {"Pending"}
    assert all(txn.hold.released_at is not None for txn in held)
    read, _day = _originate()
    assert sorted(entry.amount for batch in read.batches for entry in batch.entries) == [2500, 2600]


def test_prenote_first_declines_the_held_debit_when_the_prenote_is_returned(api_client, company, method, tmp_path):
    _set_policy(company, "prenote_first")
    # One return of one debit is over every return-rate threshold: keep that program's debit hold out of this test.
    company.merchant_settings.hold_debits_on_breach = False
    company.merchant_settings.save(update_fields=["hold_debits_on_breach"])
    held = put_charge(api_client, saved_charge(method.customer, method)).json()["data"]
    _read, day = _originate()
    prenote = Transaction.objects.get(account_validation__isnull=False)

    # R12 (account sold to another DFI) does not block the method the way R02-R04 and R20 do.
    _import(tmp_path, [(prenote, "R12", {})], _eastern(calendar.add_business_days(day, 1), 10))

    txn = Transaction.objects.get(uuid=held["uuid"])
    assert (txn.status, txn.failure_reason) == ("DECLINED", "account validation failed")
    # And the next debit to the failed account is declined at once.
    again = put_charge(api_client, saved_charge(method.customer, method)).json()["data"]
    assert (again["status"], again["failureReason"]) == ("DECLINED", "account validation failed")


def test_batches_split_by_entry_description_and_each_header_carries_its_own(api_client, company):
    body = {"method": "ACH", "type": "Debit", "paymentDetails": bank_details()}
    for amount, extra in ((1000, {"purpose": "goods"}), (1100, {"entryDescription": "RENT"}), (1200, {})):
        assert put_charge(api_client, {**body, "amount": amount, **extra}).status_code == 201
    payroll = {"method": "ACH", "type": "Credit", "standardEntryClassCode": "PPD", "purpose": "payroll"}
    assert put_charge(api_client, {**payroll, "amount": 5000, "paymentDetails": bank_details()}).status_code == 201

    read, _day = _originate()

    by_header = {(batch.sec, batch.description): [e.amount for e in batch.entries] for batch in read.batches}
    assert by_header == {
        ("WEB", "PURCHASE"): [1000],
        ("WEB", "RENT"): [1100],
        ("WEB", "PAYMENT"): [1200],
        ("PPD", "PAYROLL"): [5000],
    }


def test_release_holds_leaves_a_validation_hold_to_its_validation(api_client, company, method):
    _set_policy(company, "prenote_first")
    held = put_charge(api_client, saved_charge(method.customer, method)).json()["data"]

    summary = run("release_holds", "--uuid", held["uuid"])

    assert summary["released"] == 0
    assert summary["notReleased"] == [
        {"uuid": held["uuid"], "reason": "held for account validation: its validation releases or declines it"}
    ]
    assert Transaction.objects.get(uuid=held["uuid"]).status == "HELD"
