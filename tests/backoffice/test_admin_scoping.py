"""Back-office tenant isolation beyond customers: a staff user with every view permission still sees only
their own companies' transactions, batches, settlements, API keys and company; platform-wide records
(users, roles, memberships, the action group, ACH files) are for superusers only."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.test import Client
from django.utils import timezone

from accounts.services import api_key_create
from tests.factories import TransactionFactory, UserFactory, membership
from transactions.models import Batch, OriginationFile, Settlement

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_client(company) -> Client:
    user = UserFactory(is_staff=True, email="support@example.com")
    user.user_permissions.add(*Permission.objects.filter(codename__startswith="view_"))
    user.user_permissions.add(*Permission.objects.filter(codename__startswith="change_"))
    membership(user, company, "support")
    client = Client()
    client.force_login(user)
    return client


def _batch(company, number: int) -> Batch:
    now = timezone.now()
    file = OriginationFile.objects.create(
        window_at=now, file_id_modifier=chr(ord("A") + number), path=f"var/outbound/{number}.ach"
    )
    return Batch.objects.create(
        company=company,
        origination_file=file,
        standard_entry_class_code="WEB",
        batch_number=number,
        effective_date=now.date(),
        batched_at=now,
    )


def _settlement(company) -> Settlement:
    now = timezone.now()
    return Settlement.objects.create(company=company, settlement_date=now.date(), processed_at=now)


def _rows_of(company, batch_number: int, key_name: str) -> dict:
    return {
        "transaction": TransactionFactory(company=company),
        "batch": _batch(company, batch_number),
        "settlement": _settlement(company),
        "apikey": api_key_create(company=company, name=key_name).api_key,
        "company": company,
    }


@pytest.fixture
def rows(company, other_company):
    return {"mine": _rows_of(company, 1, "mine"), "theirs": _rows_of(other_company, 2, "theirs")}


ADMIN_PAGES = {
    "transaction": "/admin/transactions/transaction/",
    "batch": "/admin/transactions/batch/",
    "settlement": "/admin/transactions/settlement/",
    "apikey": "/admin/accounts/apikey/",
    "company": "/admin/accounts/company/",
}


@pytest.mark.parametrize("kind", sorted(ADMIN_PAGES))
def test_staff_list_holds_only_their_companys_rows(staff_client, rows, kind):
    response = staff_client.get(ADMIN_PAGES[kind])
    assert response.status_code == 200
    listed = {obj.pk for obj in response.context["cl"].result_list}
    assert listed == {rows["mine"][kind].pk}


@pytest.mark.parametrize("kind", sorted(ADMIN_PAGES))
def test_staff_cannot_open_another_companys_row(staff_client, rows, kind):
    assert staff_client.get(f"{ADMIN_PAGES[kind]}{rows['mine'][kind].pk}/change/").status_code == 200
    # Django's admin answers an object outside get_queryset with a redirect to the index and a message.
    assert staff_client.get(f"{ADMIN_PAGES[kind]}{rows['theirs'][kind].pk}/change/").status_code in (302, 404)


@pytest.mark.parametrize(
    "page",
    [
        "/admin/accounts/user/",
        "/admin/accounts/role/",
        "/admin/accounts/membership/",
        "/admin/accounts/actiongroup/",
        "/admin/transactions/originationfile/",
        "/admin/transactions/ingestionfile/",
    ],
)
def test_platform_wide_records_are_closed_to_staff_and_open_to_superusers(staff_client, rows, page):
    assert staff_client.get(page).status_code == 403
    superuser = Client()
    superuser.force_login(UserFactory(is_staff=True, is_superuser=True))
    assert superuser.get(page).status_code == 200


def test_staff_admin_action_does_not_reach_another_companys_transaction(staff_client, rows):
    # The reject action needs its own permission (H2); with it, the staff user still reaches only their companies.
    staff = UserFactory._meta.model.objects.get(email="support@example.com")
    staff.user_permissions.add(Permission.objects.get(codename="reject_transaction"))
    mine, theirs = rows["mine"]["transaction"], rows["theirs"]["transaction"]
    staff_client.post(
        ADMIN_PAGES["transaction"],
        {"action": "reject_transactions", "_selected_action": [mine.pk, theirs.pk], "post": "yes", "reason": "support"},
    )
    mine.refresh_from_db()
    theirs.refresh_from_db()
    assert (mine.status, theirs.status) == ("Rejected", "Pending")
