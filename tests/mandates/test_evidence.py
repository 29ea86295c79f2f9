"""CONTRACT 14 (2026-12-07), security review M4: a mandate's evidence is stored as its bytes, encrypted (not as a
token of its base64 text), one copy of a file per company (409 `duplicate` naming the mandate that has it), and a
company's uploads of any 24 hours stay under 20 MiB (409 `evidence_quota_exceeded`)."""

from __future__ import annotations

import base64
import os

import pytest
from django.db import connection

from mandates import services
from mandates.models import Mandate
from tests.mandates.conftest import mandate_created, mandate_post
from vault import crypto

pytestmark = pytest.mark.django_db


def _file(size: int) -> tuple[bytes, str]:
    raw = os.urandom(size)
    return raw, base64.b64encode(raw).decode()


def test_the_evidence_is_kept_as_its_bytes_encrypted_and_answered_as_sent(api_client, account):
    raw, body = _file(300_000)
    mandate = mandate_created(api_client, account, evidence=body)["mandateUuid"]

    with connection.cursor() as cursor:
        cursor.execute("SELECT evidence FROM mandates_mandate WHERE id = %s", [Mandate.objects.get(uuid=mandate).pk])
        token = cursor.fetchone()[0]
    assert crypto.decrypt_bytes(token) == raw and raw not in token.encode()
    assert len(token) < 1.4 * len(raw)  # a token of the base64 text was 1.78 times the file
    answered = api_client.get(f"/mandates/{mandate}/proof/evidence", HTTP_ACCEPT="application/octet-stream")
    assert answered.status_code == 200 and answered.content == raw


def test_a_second_copy_of_an_evidence_file_is_409_naming_the_mandate_that_has_it(api_client, account):
    _raw, body = _file(1000)
    first = mandate_created(api_client, account, evidence=body)["mandateUuid"]

    again = mandate_post(api_client, account, evidence=body)

    assert again.status_code == 409
    error = again.json()["errors"][0]
    assert (error["code"], error["field"]) == ("duplicate", "evidence")
    assert again.json()["data"] == {"mandateUuid": first}
    assert Mandate.objects.count() == 1


def test_a_companys_evidence_of_24_hours_stays_under_its_quota(api_client, other_api_client, account, monkeypatch):
    monkeypatch.setattr(services, "EVIDENCE_QUOTA_BYTES", 2500)
    for _ in range(2):
        mandate_created(api_client, account, evidence=_file(1000)[1])

    over = mandate_post(api_client, account, evidence=_file(1000)[1])

    assert over.status_code == 409
    assert over.json()["errors"][0]["code"] == "evidence_quota_exceeded"
    assert over.json()["data"] == {"limitBytes": 2500, "usedBytes": 2000}
    assert mandate_post(api_client, account, evidence=_file(500)[1]).status_code == 201  # within what is left
    assert mandate_post(api_client, account).status_code == 201  # a mandate without a file is never refused
