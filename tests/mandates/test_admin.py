"""Issue 47: support staff see mandates in the admin, read-only except revoke with a reason; a staff user of no
back-office group sees none of it. The groups are the ones the migrations seeded (backoffice 0003)."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.services import user_create
from backoffice.services import staff_access_grant
from mandates.models import Mandate
from tests.mandates.conftest import mandate_created

pytestmark = pytest.mark.django_db

PASSWORD = "a long staff password 47"
LIST = "/admin/mandates/mandate/"


def _staff_client(company, email: str, groups: list[str]) -> Client:
    staff_access_grant(
        user=user_create(email=email, password=PASSWORD, company=company, role_name="support"), groups=groups
    )
    client = Client()
    assert client.login(email=email, password=PASSWORD)
    return client


def _revoke(client: Client, mandate: Mandate, reason: str):
    return client.post(
        LIST, {"action": "revoke_selected", "_selected_action": [mandate.pk], "reason": reason, "index": 0}
    )


@pytest.fixture
def mandate(api_client, account) -> Mandate:
    return Mandate.objects.get(uuid=mandate_created(api_client, account)["mandateUuid"])


def test_support_sees_a_mandate_read_only_and_revokes_it_with_a_reason(company, mandate):
    support = _staff_client(company, "support@example.com", ["Support"])
    listing = support.get(LIST)
    assert listing.status_code == 200
    assert str(mandate.uuid) in listing.content.decode() and 'value="revoke_selected"' in listing.content.decode()

    page = support.get(f"{LIST}{mandate.pk}/change/")
    assert page.status_code == 200
    body = page.content.decode()
    assert "View mandate" in body and 'name="_save"' not in body and f"{mandate.pk}/delete/" not in body
    assert support.post(f"{LIST}{mandate.pk}/change/", {"text": "changed"}).status_code == 403
    assert support.post(f"{LIST}{mandate.pk}/delete/", {"post": "yes"}).status_code == 403

    _revoke(support, mandate, reason="")
    mandate.refresh_from_db()
    assert mandate.status == Mandate.Status.ACTIVE  # no reason, no revocation

    _revoke(support, mandate, reason="payer called to stop the gym debits")
    mandate.refresh_from_db()
    assert (mandate.status, mandate.revoked_reason) == (Mandate.Status.REVOKED, "payer called to stop the gym debits")
    assert mandate.text.startswith("I authorize")  # nothing else changed


def test_a_staff_user_of_no_group_neither_sees_nor_revokes_mandates(company, mandate):
    nobody = _staff_client(company, "nobody@example.com", [])
    assert nobody.get(LIST).status_code == 403
    assert nobody.get(f"{LIST}{mandate.pk}/change/").status_code == 403
    assert _revoke(nobody, mandate, reason="not mine to do").status_code == 403
    mandate.refresh_from_db()
    assert mandate.status == Mandate.Status.ACTIVE
