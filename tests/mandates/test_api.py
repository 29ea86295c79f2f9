"""Mandates through the API (CONTRACT 14): create with the wording's hash and the online evidence, an evidence file
encrypted at rest, list, read, revoke with two years' retention, the events, and every denial."""

from __future__ import annotations

import base64
import hashlib
from datetime import timedelta

import pytest
from dateutil.relativedelta import relativedelta
from django.db import IntegrityError, connection, transaction
from django.utils import timezone
from rest_framework.test import APIClient

from events.models import Event
from mandates.models import Mandate
from tests import factories
from tests.mandates.conftest import TEXT, mandate_body, mandate_created, mandate_post

pytestmark = pytest.mark.django_db


def test_an_online_authorization_is_stored_with_its_hash_and_announced(api_client, account):
    data = mandate_created(api_client, account)

    assert (data["status"], data["retainUntil"], data["revokedAt"]) == ("active", None, None)
    assert data["textSha256"] == hashlib.sha256(TEXT.encode()).hexdigest()
    assert (data["ipAddress"], data["channel"], data["type"]) == ("203.0.113.7", "online", "recurring")
    assert data["terms"] == {"maxAmount": 5000, "frequency": "monthly"}
    assert (data["accountNumber"], data["customerUuid"]) == ("****6789", str(account.customer.uuid))
    assert data["acceptedAt"] == "2026-11-20T15:04:05.000000Z"
    event = Event.objects.get(type="mandate.created")
    assert (str(event.object_uuid), event.data["status"]) == (data["mandateUuid"], "active")


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"ipAddress": ...}, "ipAddress"),  # online needs where from
        ({"userAgent": ...}, "userAgent"),
        ({"acceptedAt": "2999-01-01T00:00:00Z"}, "acceptedAt"),  # not in the future
        ({"acceptedAt": "yesterday"}, "acceptedAt"),
        ({"standardEntryClassCode": "IAT"}, "standardEntryClassCode"),
        ({"standardEntryClassCode": "CCD"}, "standardEntryClassCode"),  # a consumer's account
        ({"type": "standing"}, "type"),
        ({"channel": "fax"}, "channel"),
        ({"text": ""}, "text"),
        ({"text": ...}, "text"),
        ({"terms": {"maxAmount": 0}}, "terms.maxAmount"),
        ({"terms": {"maxAmount": "50"}}, "terms.maxAmount"),
        ({"terms": {"frequency": "daily"}}, "terms.frequency"),
        ({"terms": {"cap": 1}}, "terms.cap"),
        ({"terms": []}, "terms"),
        ({"ipAddress": "not-an-ip"}, "ipAddress"),
        ({"evidence": "not base64!"}, "evidence"),
        ({"evidence": 12}, "evidence"),
        ({"paymentMethodUuid": "nope"}, "paymentMethodUuid"),
        ({"surprise": True}, "surprise"),
    ],
)
def test_bad_input_is_400_naming_the_field_and_writes_nothing(api_client, account, overrides, field):
    response = mandate_post(api_client, account, **overrides)

    assert response.status_code == 400, response.content
    assert response.json()["errors"][0]["field"] == field
    assert not Mandate.objects.exists() and not Event.objects.filter(type="mandate.created").exists()


def test_paper_and_phone_authorizations_need_no_online_evidence(api_client, account):
    data = mandate_created(
        api_client, account, channel="phone", standardEntryClassCode="TEL", ipAddress=..., userAgent=...
    )
    assert (data["channel"], data["ipAddress"], data["userAgent"]) == ("phone", None, None)


def test_an_evidence_file_is_encrypted_at_rest_and_known_by_its_hash(api_client, account):
    recording = b"RIFF....WAVEfmt a recorded phone authorization" * 100
    encoded = base64.b64encode(recording).decode()

    data = mandate_created(api_client, account, evidence=encoded)

    assert data["evidenceSha256"] == hashlib.sha256(recording).hexdigest()
    assert data["evidenceBytes"] == len(recording)
    with connection.cursor() as cursor:
        cursor.execute("SELECT evidence FROM mandates_mandate")
        (stored,) = cursor.fetchone()
    assert encoded not in stored and encoded[:40] not in stored
    assert Mandate.objects.get().evidence == recording  # its bytes (CONTRACT 14, 2026-12-07)


def test_an_evidence_file_of_5_mb_is_taken_and_a_larger_one_is_400(api_client, account):
    limit = 5 * 1024 * 1024
    taken = mandate_post(api_client, account, evidence=base64.b64encode(b"x" * limit).decode())
    assert taken.status_code == 201, taken.content[:300]
    refused = mandate_post(api_client, account, evidence=base64.b64encode(b"x" * (limit + 1)).decode())
    assert refused.status_code == 400
    assert refused.json()["errors"][0]["field"] == "evidence"
    assert Mandate.objects.count() == 1


def test_list_and_read_show_the_customers_mandates_newest_first(api_client, account):
    first = mandate_created(api_client, account)
    second = mandate_created(api_client, account, type="single", terms=...)

    listed = api_client.get(f"/customers/{account.customer.uuid}/mandates").json()
    assert [row["mandateUuid"] for row in listed["data"]["mandates"]] == [second["mandateUuid"], first["mandateUuid"]]
    assert listed["meta"]["pagination"]["totalRows"] == 2
    read = api_client.get(f"/mandates/{first['mandateUuid']}").json()["data"]
    assert read == first


def test_revoke_ends_it_and_keeps_it_two_years(api_client, account):
    data = mandate_created(api_client, account)
    before = timezone.now()

    response = api_client.post(f"/mandates/{data['mandateUuid']}/revoke", {"reason": "payer asked"}, format="json")

    assert response.status_code == 200, response.content
    revoked = response.json()["data"]
    assert (revoked["status"], revoked["revokedReason"]) == ("revoked", "payer asked")
    mandate = Mandate.objects.get()
    assert mandate.revoked_at >= before
    assert mandate.retain_until == mandate.revoked_at + relativedelta(years=2)
    assert Event.objects.get(type="mandate.revoked").data["status"] == "revoked"
    again = api_client.post(f"/mandates/{data['mandateUuid']}/revoke", {"reason": "again"}, format="json")
    assert (again.status_code, again.json()["errors"][0]["code"]) == (409, "mandate_not_active")


@pytest.mark.parametrize("body", [{}, {"reason": ""}, {"reason": "   "}, {"reason": 5}, {"reason": "x", "more": 1}])
def test_revoke_needs_a_reason(api_client, account, body):
    data = mandate_created(api_client, account)
    response = api_client.post(f"/mandates/{data['mandateUuid']}/revoke", body, format="json")
    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] in {"reason", "more"}
    assert Mandate.objects.get().status == "active"


def test_another_companys_mandate_and_customer_are_404(api_client, other_api_client, account):
    data = mandate_created(api_client, account)
    uuid = data["mandateUuid"]

    assert other_api_client.get(f"/mandates/{uuid}").status_code == 404
    assert other_api_client.post(f"/mandates/{uuid}/revoke", {"reason": "x"}, format="json").status_code == 404
    assert other_api_client.get(f"/customers/{account.customer.uuid}/mandates").status_code == 404
    assert mandate_post(other_api_client, account).status_code == 404
    assert Mandate.objects.get().status == "active"


def test_a_method_of_another_customer_is_404(api_client, company, account):
    stranger = factories.CustomerFactory(company=company)
    response = api_client.post(f"/customers/{stranger.uuid}/mandates", mandate_body(account), format="json")
    assert response.status_code == 404
    assert not Mandate.objects.exists()


def test_without_credentials_401_and_without_the_actions_403(company, account, anonymous_client):
    assert mandate_post(anonymous_client, account).status_code == 401
    scoped = factories.issue_api_key(company, actions=["CreateCustomer"])
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=scoped.authorization)
    assert mandate_post(client, account).status_code == 403
    assert client.get(f"/customers/{account.customer.uuid}/mandates").status_code == 403
    viewer = factories.issue_api_key(company, actions=["ViewMandates"])
    client.credentials(HTTP_AUTHORIZATION=viewer.authorization)
    assert client.get(f"/customers/{account.customer.uuid}/mandates").status_code == 200
    assert mandate_post(client, account).status_code == 403


@pytest.mark.postgres
def test_the_database_keeps_a_mandate_until_its_retain_until(api_client, account):
    data = mandate_created(api_client, account)
    mandate = Mandate.objects.get()
    with pytest.raises(IntegrityError), transaction.atomic():
        Mandate.objects.filter(pk=mandate.pk).delete()  # active: kept

    api_client.post(f"/mandates/{data['mandateUuid']}/revoke", {"reason": "payer asked"}, format="json")
    with pytest.raises(IntegrityError), transaction.atomic():
        Mandate.objects.filter(pk=mandate.pk).delete()  # revoked today: two years to go

    past = timezone.now() - timedelta(days=1)
    Mandate.objects.filter(pk=mandate.pk).update(revoked_at=past - relativedelta(years=2), retain_until=past)
    Mandate.objects.filter(pk=mandate.pk).delete()
    assert not Mandate.objects.exists()
