"""The sandbox routes (CONTRACT 13): what a merchant's developer does, and what a live company cannot do."""

from __future__ import annotations

import uuid

import pytest
from rest_framework.test import APIClient

from accounts.models import ApiKey, Company
from accounts.services import basic_authorization
from events.delivery import deliveries_run
from tests import factories
from tests.transactions.ach import nacha_reader
from tests.transactions.sandbox.conftest import advance, charge, ok, run, saved_account, status_of
from transactions.models import ChangeNotice, OriginationFile, Transaction

pytestmark = pytest.mark.django_db

SANDBOX_ROUTES = [
    ("/sandbox/transactions/{uuid}/return", {"code": "R01"}),
    ("/sandbox/transactions/{uuid}/notice-of-change", {"code": "C01"}),
    ("/sandbox/clock/advance", {"days": 1}),
    ("/sandbox/risk/reset", {}),
]


def test_sandbox_keys_start_with_vk_test_and_live_keys_do_not(sandbox_company, company):
    sandbox_key = factories.issue_api_key(sandbox_company)
    live_key = factories.issue_api_key(company)
    assert sandbox_key.raw_key.startswith("vk_test_")
    assert live_key.raw_key.startswith("vk_") and not live_key.raw_key.startswith("vk_test_")
    # The prefix is part of what is hashed: a live key with test_ put in front is no key at all.
    forged = "vk_test_" + live_key.raw_key.removeprefix("vk_")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=basic_authorization(forged))
    assert client.get("/customers?page=0&pageSize=1").status_code == 401


def test_create_company_sandbox_flag_makes_a_sandbox_company(db):
    live = run("create_company", "--name", "Live Co")
    sandbox = run("create_company", "--name", "Test Co", "--sandbox")
    key = run("create_api_key", "--company", sandbox["companyUuid"])
    assert key["apiKey"].startswith("vk_test_")
    assert ApiKey.objects.get(prefix=key["prefix"]).company.is_sandbox
    assert not Company.objects.get(uuid=live["companyUuid"]).is_sandbox


@pytest.mark.parametrize(("path", "body"), SANDBOX_ROUTES)
def test_a_live_company_gets_404_on_every_sandbox_route(api_client, company, path, body):
    txn = factories.TransactionFactory(company=company)
    response = api_client.post(path.format(uuid=txn.uuid), body, format="json")
    assert response.status_code == 404, response.content
    assert response.json()["status"] == "error"


@pytest.mark.parametrize(("path", "body"), SANDBOX_ROUTES)
def test_sandbox_routes_need_the_simulate_sandbox_action(sandbox_company, path, body):
    scoped = factories.issue_api_key(sandbox_company, actions=["ViewTransactions"])
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=scoped.authorization)
    response = client.post(path.format(uuid=uuid.uuid4()), body, format="json")
    assert response.status_code == 403


def test_no_sandbox_entry_reaches_a_live_file_when_both_are_due_in_one_run(sandbox_company, company, file_dirs):
    outbound, sandbox_dir = file_dirs
    live = [factories.TransactionFactory(company=company, account_number=f"11122233{n}") for n in range(3)]
    test = [factories.TransactionFactory(company=sandbox_company, account_number=f"44455566{n}") for n in range(3)]

    out = run("originate")

    assert out["transactions"] == 6
    (live_file,) = outbound.glob("*.ach")
    (sandbox_file,) = sandbox_dir.glob("*.ach")
    assert [path for path in out["files"] if path.startswith(str(outbound))] == [str(live_file)]
    live_read, sandbox_read = (nacha_reader.read(path.read_text()) for path in (live_file, sandbox_file))
    live_ids = {entry.individual_id.strip() for batch in live_read.batches for entry in batch.entries}
    sandbox_ids = {entry.individual_id.strip() for batch in sandbox_read.batches for entry in batch.entries}
    assert live_ids == {str(txn.pk) for txn in live}
    assert sandbox_ids == {str(txn.pk) for txn in test}
    assert "Sandbox Merchant".upper() not in live_file.read_text()
    assert set(OriginationFile.objects.values_list("is_sandbox", flat=True)) == {False, True}


def test_a_charge_walks_through_create_advance_settle_return_and_late_return(sandbox_client, receiver):
    ok(sandbox_client.post("/webhooks/endpoints", {"url": receiver.url, "eventTypes": ["*"]}, format="json"), 201)
    plain = charge(sandbox_client, *saved_account(sandbox_client, "123456789"))
    returned = charge(sandbox_client, *saved_account(sandbox_client, "00055501", last_name="Returned"))
    late = charge(sandbox_client, *saved_account(sandbox_client, "00077710", last_name="Late"))

    first = advance(sandbox_client, 3)
    assert first["transactions"] == 3 and first["settled"] == 2 and first["returns"] == 1
    assert status_of(sandbox_client, plain["uuid"])["status"] == "Settled"
    assert status_of(sandbox_client, late["uuid"])["status"] == "Settled"
    assert status_of(sandbox_client, returned["uuid"])["status"] == "Returned"

    # The merchant asks for a return of the plain one now: after settlement it is a late return.
    record = ok(sandbox_client.post(f"/sandbox/transactions/{plain['uuid']}/return", {"code": "R10"}, format="json"))
    assert record["status"] == "Returned"
    assert Transaction.objects.get(uuid=plain["uuid"]).late_returned_at is not None

    later = advance(sandbox_client, 30)  # more than 40 calendar days
    assert later["lateReturns"] == 1
    assert Transaction.objects.get(uuid=late["uuid"]).return_code == "R10"
    assert later["now"] > first["now"]

    deliveries_run()
    seen = {(body["objectUuid"], body["type"]) for body in receiver.bodies()}
    for kind in ("created", "processing", "settled"):
        assert (plain["uuid"], f"transaction.{kind}") in seen
    assert (returned["uuid"], "transaction.returned") in seen
    assert (returned["uuid"], "transaction.settled") not in seen
    assert (plain["uuid"], "transaction.late_returned") in seen
    assert (late["uuid"], "transaction.late_returned") in seen


def test_a_notice_of_change_corrects_the_saved_method(sandbox_client):
    customer_uuid, method_uuid = saved_account(sandbox_client, "123456789")
    txn = charge(sandbox_client, customer_uuid, method_uuid)
    advance(sandbox_client, 1)

    ok(
        sandbox_client.post(
            f"/sandbox/transactions/{txn['uuid']}/notice-of-change",
            {"code": "C01", "correctedData": {"accountNumber": "55556666"}},
            format="json",
        )
    )

    method = ok(sandbox_client.get(f"/customers/{customer_uuid}/payment-methods/{method_uuid}"))
    assert method["lastFourDigits"] == "6666"
    assert ChangeNotice.objects.get().change_code == "C01"


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("return", {"code": "R99"}, "code"),
        ("return", {"code": "R61"}, "code"),  # a dishonor is not a receiver's return
        ("return", {"code": "C01"}, "code"),
        ("return", {}, "code"),
        ("return", {"code": 1}, "code"),
        ("notice-of-change", {"code": "C99"}, "code"),
        ("notice-of-change", {"code": "C02", "correctedData": {"accountNumber": "123456"}}, "correctedData"),
        ("notice-of-change", {"code": "C01", "correctedData": {"accountNumber": "12AB"}}, "correctedData"),
        ("notice-of-change", {"code": "C01", "correctedData": {"colour": "red"}}, "correctedData.colour"),
    ],
)
def test_a_code_that_does_not_fit_is_4xx_naming_the_field(sandbox_client, path, body, field):
    txn = charge(sandbox_client, *saved_account(sandbox_client, "123456789"))
    advance(sandbox_client, 1)
    before = (Transaction.objects.get(uuid=txn["uuid"]).status, ChangeNotice.objects.count())

    response = sandbox_client.post(f"/sandbox/transactions/{txn['uuid']}/{path}", body, format="json")

    assert 400 <= response.status_code < 500, response.content
    assert response.json()["errors"][0]["field"] == field, response.content
    assert (Transaction.objects.get(uuid=txn["uuid"]).status, ChangeNotice.objects.count()) == before


def test_an_entry_not_sent_yet_cannot_come_back(sandbox_client):
    txn = charge(sandbox_client, *saved_account(sandbox_client, "123456789"))
    response = sandbox_client.post(f"/sandbox/transactions/{txn['uuid']}/return", {"code": "R01"}, format="json")
    assert response.status_code == 409
    assert response.json()["errors"][0]["code"] == "not_simulatable"
    assert status_of(sandbox_client, txn["uuid"])["status"] == "Pending"


def test_another_companys_transaction_is_404(sandbox_client, db):
    other_sandbox = factories.CompanyFactory(is_sandbox=True)
    txn = factories.TransactionFactory(company=other_sandbox, trace_number="021000020000001", status="Processing")
    response = sandbox_client.post(f"/sandbox/transactions/{txn.uuid}/return", {"code": "R01"}, format="json")
    assert response.status_code == 404


@pytest.mark.parametrize("days", [0, -1, 400, "3", 1.5, None, True])
def test_advancing_by_a_bad_number_of_days_is_400_naming_days(sandbox_client, days):
    response = sandbox_client.post("/sandbox/clock/advance", {"days": days}, format="json")
    assert response.status_code == 400, response.content
    assert response.json()["errors"][0]["field"] == "days"


def test_advancing_one_sandbox_company_leaves_every_other_company_alone(sandbox_client, company, db):
    other_sandbox = factories.CompanyFactory(is_sandbox=True)
    untouched = [factories.TransactionFactory(company=owner) for owner in (company, other_sandbox)]
    charge(sandbox_client, *saved_account(sandbox_client, "123456789"))

    assert advance(sandbox_client, 5)["transactions"] == 1

    assert {txn.status for txn in Transaction.objects.filter(pk__in=[t.pk for t in untouched])} == {"Pending"}
