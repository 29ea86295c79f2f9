"""The security review's lows of 2026-12-02 in the back office: an admin 403 is one log line (L-1); re-activating a
customer and lifting a debit hold need permissions of their own, which Risk has and Support has not (N15)."""

from __future__ import annotations

import io
import json
import logging

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from customers.models import Customer
from tests.customers.test_admin import _change_form
from tests.factories import CustomerFactory
from transactions.models import DebitHold
from transactions.risk.policies import company_debit_hold_place

pytestmark = pytest.mark.django_db


def _staff_client(company, group: str) -> Client:
    out = io.StringIO()
    email = f"{group.lower()}@example.com"
    call_command("create_staff_user", "--email", email, "--group", group, "--company", str(company.uuid), stdout=out)
    client = Client()
    assert client.login(email=email, password=json.loads(out.getvalue())["password"])
    return client


def test_an_admin_page_a_staff_user_may_not_see_logs_one_line_without_a_traceback(company, caplog):
    support = _staff_client(company, "Support")
    console = logging.getLogger().handlers[0]  # LOGGING's console handler, with its formatter

    with caplog.at_level(logging.WARNING, logger="django.request"):
        response = support.get("/admin/auth/group/")

    assert response.status_code == 403
    forbidden = [record for record in caplog.records if record.name == "django.request"]
    assert len(forbidden) == 1 and "Forbidden" in forbidden[0].getMessage()
    assert forbidden[0].exc_info is None
    assert "\n" not in console.format(forbidden[0])


@pytest.mark.parametrize(("group", "may"), [("Support", False), ("Risk", True)])
def test_only_risk_re_activates_a_customer_by_the_action(company, group, may):
    customer = CustomerFactory(company=company, status=Customer.Status.INACTIVE)
    client = _staff_client(company, group)

    client.post("/admin/customers/customer/", {"action": "activate", "_selected_action": [customer.pk]})

    customer.refresh_from_db()
    assert (customer.status == Customer.Status.ACTIVE) is may


@pytest.mark.parametrize(("group", "may"), [("Support", False), ("Risk", True)])
def test_only_risk_re_activates_a_customer_by_its_form(company, group, may):
    customer = CustomerFactory(company=company, status=Customer.Status.INACTIVE)
    client = _staff_client(company, group)

    response = client.post(f"/admin/customers/customer/{customer.pk}/change/", _change_form(customer, status="active"))

    customer.refresh_from_db()
    assert (customer.status == Customer.Status.ACTIVE) is may
    if not may:
        assert "Can re-activate customers" in response.content.decode()


def test_support_still_deactivates_and_edits_a_customer(company):
    customer = CustomerFactory(company=company)
    client = _staff_client(company, "Support")

    client.post("/admin/customers/customer/", {"action": "deactivate", "_selected_action": [customer.pk]})
    customer.refresh_from_db()
    assert customer.status == Customer.Status.INACTIVE
    response = client.post(
        f"/admin/customers/customer/{customer.pk}/change/", _change_form(customer, last_name="Hopper")
    )
    assert response.status_code == 302
    customer.refresh_from_db()
    assert customer.last_name == "Hopper"


@pytest.mark.parametrize(("group", "may"), [("Support", False), ("Risk", True)])
def test_only_risk_lifts_a_debit_hold(company, group, may):
    hold = company_debit_hold_place(company_id=company.pk, reason="return rate over", at=timezone.now())
    client = _staff_client(company, group)

    changelist = client.get(reverse("admin:transactions_debithold_changelist"))
    client.post(reverse("admin:transactions_debithold_changelist"), {"action": "lift", "_selected_action": [hold.pk]})

    assert changelist.status_code == 200 and ('value="lift"' in changelist.content.decode()) is may
    assert (DebitHold.objects.get(pk=hold.pk).lifted_at is not None) is may
