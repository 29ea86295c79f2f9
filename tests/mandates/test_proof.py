"""The proof-of-authorization packet (CONTRACT 14): one PDF with everything a bank asks for, read back with pypdf as
the bank would, and the evidence file as it was sent."""

from __future__ import annotations

import base64
import hashlib
import io

import pytest
from pypdf import PdfReader

from mandates.models import Mandate
from tests.mandates.conftest import TEXT, mandate_created, mandate_post
from tests.mandates.test_charges import MONDAY_10_00, debit
from tests.transactions.ach.conftest import run
from transactions.models import Transaction

pytestmark = pytest.mark.django_db

SIGNED_FORM = b"%PDF-1.4 a signed paper authorization form" * 50


def _text(response) -> str:
    assert response.status_code == 200, response.content[:300]
    assert response["Content-Type"] == "application/pdf"
    assert response.content.startswith(b"%PDF")
    return "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(response.content)).pages)


def test_the_packet_carries_the_authorization_and_every_debit_with_its_trace(api_client, company, account):
    mandate = mandate_created(api_client, account, evidence=base64.b64encode(SIGNED_FORM).decode())
    uuid = mandate["mandateUuid"]
    first = debit(api_client, account, mandateUuid=uuid).json()["data"]
    run("originate", "--at", MONDAY_10_00)
    second = debit(api_client, account, mandateUuid=uuid, amount=4500).json()["data"]
    debit(api_client, account, amount=1111)  # not under the mandate
    trace = Transaction.objects.get(uuid=first["uuid"]).trace_number
    assert trace

    text = _text(api_client.get(f"/mandates/{uuid}/proof"))

    for expected in (
        company.name,
        str(company.uuid),
        "Ada Lovelace",
        "****6789",
        hashlib.sha256(TEXT.encode()).hexdigest(),
        "2026-11-20T15:04:05.000000Z",  # when
        "online",  # how
        "203.0.113.7",  # from where
        "Mozilla/5.0",
        hashlib.sha256(SIGNED_FORM).hexdigest(),  # the evidence's hash
        first["uuid"],
        trace,
        "Processing",
        second["uuid"],
        "Pending",
        "Debits under this authorization (2)",
    ):
        assert expected in text.replace("\n", " "), expected
    assert "I authorize Acme Gym" in text
    assert "$11.11" not in text


def test_the_evidence_route_gives_the_file_back_as_sent(api_client, account):
    uuid = mandate_created(api_client, account, evidence=base64.b64encode(SIGNED_FORM).decode())["mandateUuid"]
    response = api_client.get(f"/mandates/{uuid}/proof/evidence")
    assert response.status_code == 200
    assert response.content == SIGNED_FORM
    bare = mandate_created(api_client, account)["mandateUuid"]
    assert api_client.get(f"/mandates/{bare}/proof/evidence").status_code == 404


def test_a_revoked_mandate_still_has_its_packet_and_a_stranger_gets_404(api_client, other_api_client, account):
    uuid = mandate_created(api_client, account, text="Je t'autorise — débit mensuel ✓")["mandateUuid"]
    api_client.post(f"/mandates/{uuid}/revoke", {"reason": "R10 from the bank"}, format="json")

    text = _text(api_client.get(f"/mandates/{uuid}/proof"))

    assert "revoked" in text and "R10 from the bank" in text
    assert "débit mensuel" in text and "shown as '?'" in text
    assert other_api_client.get(f"/mandates/{uuid}/proof").status_code == 404
    assert other_api_client.get(f"/mandates/{uuid}/proof/evidence").status_code == 404


FORGED = "Mozilla/5.0\nStatus          active\nIP address     198.51.100.77 (verified by bank)"


def test_a_user_agent_of_more_than_one_line_is_400_and_saves_nothing(api_client, account):
    """Security review L3 (third round): its newlines printed what read as fields of the packet."""
    for forged in (FORGED, "Mozilla/5.0\r\nX", "Mozilla/5.0\tX", "Mozilla/5.0\x1b[2J"):
        response = mandate_post(api_client, account, userAgent=forged)

        assert response.status_code == 400, response.content
        assert response.json()["errors"][0]["field"] == "userAgent"
    assert not Mandate.objects.exists()


def test_a_stored_newline_prints_as_its_escape_not_as_another_line(api_client, account):
    """A mandate saved before the API refused them: each field of the packet stays on its own line."""
    uuid = mandate_created(api_client, account)["mandateUuid"]
    Mandate.objects.filter(uuid=uuid).update(user_agent=FORGED)

    lines = [line.strip() for line in _text(api_client.get(f"/mandates/{uuid}/proof")).splitlines()]

    assert not any(line.startswith("IP address 198.51.100.77") for line in lines), lines
    assert [line for line in lines if line.startswith("Status")] == ["Status active"]
    (agent,) = [line for line in lines if line.startswith("User agent")]
    assert agent.startswith("User agent Mozilla/5.0\\x0aStatus")
