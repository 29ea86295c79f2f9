"""The support back office: scoped to the staff user's companies, masked methods, history with who and when."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.test import Client

from customers.models import Customer
from tests.factories import CustomerFactory, PaymentMethodFactory, UserFactory, membership

pytestmark = pytest.mark.django_db

LIST = "/admin/customers/customer/"


@pytest.fixture
def staff(company):
    user = UserFactory(is_staff=True, email="support@example.com")
    user.user_permissions.add(
        *Permission.objects.filter(codename__in=["view_customer", "change_customer", "view_paymentmethod"])
    )
    membership(user, company, "support")
    return user


@pytest.fixture
def staff_client(staff) -> Client:
    client = Client()
    client.force_login(staff)
    return client


@pytest.fixture
def mine(company):
    return CustomerFactory(company=company, first_name="Ada", last_name="Lovelace", customer_id="crm-1")


@pytest.fixture
def theirs(other_company):
    return CustomerFactory(company=other_company, first_name="Grace", last_name="Hopper", customer_id="crm-2")


def test_list_shows_only_customers_of_the_staff_users_companies(staff_client, mine, theirs):
    response = staff_client.get(LIST)
    assert response.status_code == 200
    page = response.content.decode()
    assert "Lovelace" in page
    assert "Hopper" not in page
    assert "Other Merchant" not in page  # nor the other company in the filter sidebar


@pytest.mark.parametrize("term", ["lovelace", "ADA", "crm-1", "payer", "{uuid}", " {uuid_upper} "])
def test_search(staff_client, company, mine, term):
    decoy = CustomerFactory(company=company, first_name="Zed", last_name="Zulu", email="zz@example.org")
    mine.email = "payer-ada@example.com"
    mine.save()
    term = term.format(uuid=mine.uuid, uuid_upper=str(mine.uuid).upper())
    page = staff_client.get(LIST, {"q": term}).content.decode()
    assert f"{LIST}{mine.pk}/change/" in page
    assert f"{LIST}{decoy.pk}/change/" not in page


def test_search_does_not_reach_other_companies(staff_client, mine, theirs):
    for term in ("Hopper", "crm-2", str(theirs.uuid)):
        page = staff_client.get(LIST, {"q": term}).content.decode()
        assert f"{LIST}{theirs.pk}/change/" not in page


def test_filters_by_status_and_holder_type(staff_client, company, mine):
    CustomerFactory(company=company, first_name="Ina", last_name="Active-Not", status="inactive")
    page = staff_client.get(LIST, {"status__exact": "inactive"}).content.decode()
    assert "Active-Not" in page and "Lovelace" not in page
    page = staff_client.get(LIST, {"account_holder_type__exact": "consumer"}).content.decode()
    assert "Lovelace" in page


def test_other_companys_customer_page_and_history_are_closed(staff_client, theirs):
    assert staff_client.get(f"{LIST}{theirs.pk}/change/").status_code in (302, 404)
    assert staff_client.get(f"{LIST}{theirs.pk}/history/").status_code == 404
    version = theirs.history.latest().history_id
    assert staff_client.get(f"{LIST}{theirs.pk}/history/{version}/").status_code == 404


def test_superuser_sees_every_company(mine, theirs):
    client = Client()
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    page = client.get(LIST).content.decode()
    assert "Lovelace" in page and "Hopper" in page


def test_deactivate_action_records_who_in_history(staff_client, staff, mine, theirs):
    response = staff_client.post(LIST, {"action": "deactivate", "_selected_action": [mine.pk, theirs.pk]}, follow=True)
    assert response.status_code == 200
    mine.refresh_from_db()
    theirs.refresh_from_db()
    assert mine.status == "inactive"
    assert theirs.status == "active"  # outside the staff user's scope: untouched
    latest = mine.history.latest()
    assert latest.status == "inactive" and latest.history_user == staff
    history_page = staff_client.get(f"{LIST}{mine.pk}/history/").content.decode()
    assert staff.email in history_page


def test_activate_action(staff_client, staff, company):
    staff.user_permissions.add(Permission.objects.get(codename="activate_customer"))
    customer = CustomerFactory(company=company, status="inactive")
    staff_client.post(LIST, {"action": "activate", "_selected_action": [customer.pk]})
    customer.refresh_from_db()
    assert customer.status == "active"


def _change_form(customer: Customer, **overrides) -> dict:
    data = {
        "status": customer.status,
        "account_holder_type": customer.account_holder_type,
        "first_name": customer.first_name,
        "last_name": customer.last_name,
        "company_name": customer.company_name,
        "customer_id": customer.customer_id,
        "email": customer.email,
        "phone": customer.phone,
        "payment_methods-TOTAL_FORMS": "0",
        "payment_methods-INITIAL_FORMS": "0",
    }
    return data | overrides


def test_edit_is_recorded_in_history_with_the_user(staff_client, staff, mine):
    response = staff_client.post(f"{LIST}{mine.pk}/change/", _change_form(mine, email="changed@example.com"))
    assert response.status_code == 302, response.content.decode()[:2000]
    mine.refresh_from_db()
    assert mine.email == "changed@example.com"
    latest = mine.history.latest()
    assert latest.history_user == staff and latest.history_date is not None
    assert "email" in latest.diff_against(latest.prev_record).changed_fields
    history_page = staff_client.get(f"{LIST}{mine.pk}/history/").content.decode()
    assert staff.email in history_page and "changed@example.com" in history_page


def test_edit_applies_the_holder_and_phone_rules(staff_client, mine):
    response = staff_client.post(f"{LIST}{mine.pk}/change/", _change_form(mine, first_name="", phone="12-34"))
    assert response.status_code == 200  # the form again, with errors
    mine.refresh_from_db()
    assert mine.first_name == "Ada"


def test_payment_methods_inline_is_masked(staff_client, mine):
    PaymentMethodFactory(customer=mine, account_number="987654321012", is_default=True)
    page = staff_client.get(f"{LIST}{mine.pk}/change/").content.decode()
    assert "Checking ****1012" in page
    assert "987654321012" not in page
    assert "021000021" not in page


def test_payment_method_admin_is_masked_and_scoped(staff_client, mine, theirs):
    PaymentMethodFactory(customer=mine, account_number="987654321012")
    PaymentMethodFactory(customer=theirs, account_number="123412341234")
    page = staff_client.get("/admin/payments/paymentmethod/").content.decode()
    assert "****1012" in page
    assert "987654321012" not in page
    assert "****1234" not in page


def test_non_staff_user_is_sent_to_login(company, mine):
    client = Client()
    client.force_login(UserFactory())
    assert client.get(LIST).status_code == 302


def test_payment_method_admin_finds_by_customer_uuid(staff_client, mine, company):
    method = PaymentMethodFactory(customer=mine)
    other = PaymentMethodFactory(customer=CustomerFactory(company=company))
    page = staff_client.get("/admin/payments/paymentmethod/", {"q": str(mine.uuid)}).content.decode()
    assert f"/admin/payments/paymentmethod/{method.pk}/change/" in page
    assert f"/admin/payments/paymentmethod/{other.pk}/change/" not in page


def test_an_edit_in_the_admin_reaches_the_merchant_as_a_patch_would(staff_client, api_client, company):
    created = api_client.post("/customers", {"firstName": "Grace", "lastName": "Hoper"}, format="json").json()["data"]
    customer = Customer.objects.get(uuid=created["customerUuid"])

    response = staff_client.post(f"{LIST}{customer.pk}/change/", _change_form(customer, last_name="Hopper"))
    assert response.status_code == 302, response.content.decode()[:2000]

    events = api_client.get("/events", {"objectUuid": created["customerUuid"]}).json()["data"]
    assert [event["type"] for event in events] == ["customer.updated", "customer.created"]
    shown = api_client.get(f"/customers/{created['customerUuid']}").json()["data"]
    assert shown["lastName"] == "Hopper"
    assert events[0]["data"] == shown


def test_an_unchanged_save_in_the_admin_tells_the_merchant_nothing(staff_client, api_client, company):
    created = api_client.post("/customers", {"firstName": "Ada", "lastName": "Lovelace"}, format="json").json()["data"]
    customer = Customer.objects.get(uuid=created["customerUuid"])
    staff_client.post(f"{LIST}{customer.pk}/change/", _change_form(customer))
    staff_client.post(f"{LIST}{customer.pk}/change/", _change_form(customer, status="inactive"))
    events = api_client.get("/events", {"objectUuid": created["customerUuid"]}).json()["data"]
    assert [event["type"] for event in events] == ["customer.deactivated", "customer.created"]
