"""The payout account (CONTRACT 18): `PUT`/`GET /settings/payout-account`, the number encrypted and shown masked, a
prenote before it is usable, a cool-down of 3 banking days after a change, `payout_account.updated`, the admin's
masked history; denials and bad input."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta

import pytest
import time_machine
from django.db import connection
from rest_framework.test import APIClient

from events.models import Event
from payouts.models import PayoutAccount
from tests import factories
from tests.conftest import ORDINARY_BANKING_DAY
from tests.mandates.test_admin import _staff_client
from tests.transactions.ach.conftest import run
from transactions import calendar
from transactions.models import AccountValidation, Transaction
from transactions.sandbox.bank_files import return_file_for

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("ordinary_banking_day")]

URL = "/settings/payout-account"
NUMBER, OTHER_NUMBER = "000123456789", "987654321"
BODY = {"routingNumber": "021000021", "accountNumber": NUMBER, "accountType": "Checking", "holderName": "Acme LLC"}
TODAY = ORDINARY_BANKING_DAY.date()  # a Tuesday


def eastern(day, hour: int) -> datetime:
    return datetime.combine(day, time(hour), tzinfo=calendar.EASTERN).astimezone(UTC)


def stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def put(client, **changes):
    return client.put(URL, {**BODY, **changes}, format="json")


def account_set(client, **changes) -> dict:
    response = put(client, **changes)
    assert response.status_code == 200, response.content
    return response.json()["data"]


def prenote_validated() -> None:
    """`originate` sends the prenote today, `settle` 3 banking days later finds no return: validated."""
    run("originate", "--at", stamp(ORDINARY_BANKING_DAY))
    day = Transaction.objects.filter(batch__isnull=False).latest("batch_id").batch.effective_date
    run("settle", "--at", stamp(eastern(calendar.add_business_days(day, 3), 9)))


def test_the_account_is_prenoted_and_shown_masked(api_client, company):
    data = account_set(api_client)

    assert data["accountNumber"] == "****6789" and data["lastFourDigits"] == "6789"
    assert (data["status"], data["ready"], data["validationStatus"]) == ("validating", False, "pending")
    assert data["coolDownEndsAt"] is None  # a company's first account has no cool-down, its prenote suffices
    assert api_client.get(URL).json()["data"] == data
    prenote = Transaction.objects.get(company=company, account_validation__isnull=False)
    assert (prenote.amount, prenote.type, prenote.standard_entry_class_code) == (0, "Debit", "CCD")
    assert prenote.name == company.name[:22] or prenote.name == company.name
    (event,) = Event.objects.filter(company=company, type="payout_account.updated")
    assert event.data == data
    assert NUMBER not in str(event.data)


def test_the_account_number_is_encrypted_at_rest(api_client):
    account_set(api_client)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT account_number FROM {PayoutAccount._meta.db_table}")  # noqa: S608 - model name
        (stored,) = cursor.fetchone()
    assert NUMBER not in stored
    assert PayoutAccount.objects.get().account_number == NUMBER


def test_a_consumer_account_is_prenoted_ppd(api_client, company):
    account_set(api_client, holderType="consumer")
    assert Transaction.objects.get(company=company).standard_entry_class_code == "PPD"


def test_a_validated_first_account_is_ready(api_client):
    account_set(api_client)
    prenote_validated()
    data = api_client.get(URL).json()["data"]
    assert (data["status"], data["ready"], data["validationStatus"]) == ("ready", True, "validated")


def test_a_change_is_prenoted_and_cools_down_for_three_banking_days(api_client, company):
    first = account_set(api_client)
    prenote_validated()

    changed = account_set(api_client, accountNumber=OTHER_NUMBER, routingNumber="011000015")

    assert changed["uuid"] != first["uuid"] and changed["accountNumber"] == "****4321"
    assert changed["status"] == "validating"
    ends = eastern(calendar.add_business_days(TODAY, 3), 10)
    assert changed["coolDownEndsAt"][:16] == ends.strftime("%Y-%m-%dT%H:%M")  # the clock ticks
    assert AccountValidation.objects.filter(company=company).count() == 2
    run("originate", "--at", stamp(ORDINARY_BANKING_DAY + timedelta(minutes=5)))
    day = Transaction.objects.filter(batch__isnull=False).latest("batch_id").batch.effective_date
    run("settle", "--at", stamp(eastern(calendar.add_business_days(day, 3), 9)))
    with time_machine.travel(ends - timedelta(minutes=1)):
        assert api_client.get(URL).json()["data"]["status"] == "cooling_down"
    with time_machine.travel(ends + timedelta(minutes=1)):
        assert api_client.get(URL).json()["data"]["status"] == "ready"
    assert Event.objects.filter(company=company, type="payout_account.updated").count() == 2
    assert PayoutAccount.objects.filter(company=company).count() == 2


def test_the_same_details_again_change_nothing(api_client, company):
    first = account_set(api_client)
    assert account_set(api_client) == first
    assert Event.objects.filter(company=company, type="payout_account.updated").count() == 1
    assert PayoutAccount.objects.filter(company=company).count() == 1


def test_a_new_name_on_the_same_account_keeps_its_validation(api_client, company):
    account_set(api_client)
    prenote_validated()
    renamed = account_set(api_client, holderName="Acme Holdings LLC")
    assert (renamed["holderName"], renamed["status"], renamed["coolDownEndsAt"]) == ("Acme Holdings LLC", "ready", None)
    assert AccountValidation.objects.filter(company=company).count() == 1


def test_a_returned_prenote_fails_the_account_and_a_new_put_prenotes_again(api_client, company, tmp_path):
    account_set(api_client)
    run("originate", "--at", stamp(ORDINARY_BANKING_DAY))
    prenote = Transaction.objects.get(company=company)
    path = tmp_path / "returns.ach"
    at = eastern(calendar.add_business_days(TODAY, 2), 10)
    path.write_text(return_file_for([(prenote, "R03", {})], at=at))
    run("import_returns", str(path), "--at", stamp(at))

    assert api_client.get(URL).json()["data"]["status"] == "validation_failed"
    again = account_set(api_client, holderName="Acme Corp")
    assert again["status"] == "validating"
    assert AccountValidation.objects.filter(company=company).count() == 2


def test_routes_without_credentials_are_401(anonymous_client):
    assert anonymous_client.get(URL).status_code == 401
    assert put(anonymous_client).status_code == 401


def test_routes_need_manage_payouts(company):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=factories.issue_api_key(company, actions=["ViewTransactions"]).authorization)
    assert client.get(URL).status_code == 403
    assert put(client).status_code == 403
    assert not PayoutAccount.objects.exists()


def test_another_companys_account_is_not_theirs(api_client, other_api_client, company):
    account_set(api_client)
    assert other_api_client.get(URL).status_code == 404
    account_set(other_api_client, accountNumber=OTHER_NUMBER)
    assert api_client.get(URL).json()["data"]["accountNumber"] == "****6789"
    assert PayoutAccount.objects.filter(company=company).count() == 1


def test_no_account_yet_is_404_in_the_envelope(api_client):
    response = api_client.get(URL)
    assert response.status_code == 404
    assert response.json()["errors"][0]["code"] == "not_found"


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"routingNumber": "021000022"}, "routingNumber"),
        ({"routingNumber": "12345"}, "routingNumber"),
        ({"accountNumber": "12ab5678"}, "accountNumber"),
        ({"accountNumber": "1" * 18}, "accountNumber"),
        ({"accountType": "Brokerage"}, "accountType"),
        ({"holderName": ""}, "holderName"),
        ({"holderName": ...}, "holderName"),
        ({"holderType": "trust"}, "holderType"),
        ({"nickname": "main"}, "nickname"),
    ],
)
def test_bad_input_is_400_naming_the_field_and_writes_nothing(api_client, changes, field):
    body = {name: value for name, value in {**BODY, **changes}.items() if value is not ...}
    response = api_client.put(URL, body, format="json")
    assert response.status_code == 400, response.content
    error = response.json()["errors"][0]
    assert error["field"] == field
    assert NUMBER not in response.content.decode()
    assert not PayoutAccount.objects.exists() and not Transaction.objects.exists()
    assert not Event.objects.exists()


@pytest.mark.parametrize("group", ["Support", "Risk"])
def test_staff_see_the_account_masked_with_its_history(api_client, company, group):
    account_set(api_client)
    account_set(api_client, accountNumber=OTHER_NUMBER)
    staff = _staff_client(company, f"{group.lower()}@example.com", [group])

    listing = staff.get("/admin/payouts/payoutaccount/").content.decode()
    assert "****6789" in listing and "****4321" in listing
    current = PayoutAccount.objects.get(replaced_at__isnull=True)
    page = staff.get(f"/admin/payouts/payoutaccount/{current.pk}/change/").content.decode()
    assert "****4321" in page and "****6789" in page  # the history names the account it replaced
    for text in (listing, page):
        assert NUMBER not in text and OTHER_NUMBER not in text
    assert staff.post("/admin/payouts/payoutaccount/add/", {}).status_code == 403
