"""The back office shows events with every delivery attempt and flags endpoints the platform disabled; a staff
user sees only their own companies' rows, and never a secret."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import reverse

from events.delivery import deliveries_run
from events.services import endpoint_create
from tests.events.conftest import customer_event
from tests.factories import UserFactory, membership

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_client(company) -> Client:
    user = UserFactory(is_staff=True, email="support@example.com")
    user.user_permissions.add(*Permission.objects.filter(codename__startswith="view_"))
    membership(user, company, "support")
    client = Client()
    client.force_login(user)
    return client


def test_event_page_lists_every_attempt(staff_client, company, endpoint, receiver, no_retry_wait):
    receiver.answer(503)
    event = customer_event(company)
    deliveries_run()

    page = staff_client.get(reverse("admin:events_event_change", args=[event.pk]))

    assert page.status_code == 200
    text = page.content.decode()
    assert "503" in text and "200" in text
    assert endpoint.secret not in text


def test_disabled_endpoints_are_flagged_and_secrets_never_shown(staff_client, company, endpoint, receiver):
    receiver.answer(410)
    customer_event(company)
    deliveries_run()

    listing = staff_client.get(reverse("admin:events_webhookendpoint_changelist") + "?needs_attention__exact=1")
    assert listing.status_code == 200
    assert endpoint.url in listing.content.decode()
    page = staff_client.get(reverse("admin:events_webhookendpoint_change", args=[endpoint.pk])).content.decode()
    assert "410" in page and endpoint.secret not in page and "whsec_" not in page


def test_another_companys_events_and_endpoints_are_hidden(staff_client, other_company, receiver):
    foreign_endpoint = endpoint_create(company=other_company, url=receiver.url + "/foreign", event_types=["*"])
    foreign_event = customer_event(other_company)
    deliveries_run()

    assert staff_client.get(reverse("admin:events_event_change", args=[foreign_event.pk])).status_code in (302, 404)
    assert "/foreign" not in staff_client.get(reverse("admin:events_webhookendpoint_changelist")).content.decode()
    assert staff_client.get(reverse("admin:events_webhookendpoint_change", args=[foreign_endpoint.pk])).status_code in (
        302,
        404,
    )
    attempts = staff_client.get(reverse("admin:events_deliveryattempt_changelist")).content.decode()
    assert "/foreign" not in attempts and str(foreign_event.uuid) not in attempts
