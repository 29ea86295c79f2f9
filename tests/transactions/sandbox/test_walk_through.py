"""docs/sandbox.md's walk-through, step by step through the API (newcomer review 2026-12-02 N1): one magic return
among so few debits trips the return-rate program, the held debit's reason says how the hold is lifted, the API
shows the company's holds, and POST /sandbox/risk/reset lets the developer go on. The docs' own shell block runs
too, curl and jq as a reader would, against a live server of this test: the page cannot drift from the service."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from django.conf import settings

from accounts.actions import ALL_ACTIONS, LIVE_API_KEY_GROUP
from accounts.models import ActionGroup
from tests import factories
from tests.transactions.sandbox.conftest import ok
from transactions.models import DebitHold

WALK_THROUGH = (Path(settings.BASE_DIR) / "docs" / "sandbox.md").read_text().split("## Walk-through with curl", 1)[1]
ROUTING = "021000021"


def _charge(client, account_number: str, **saved) -> dict:
    body = {
        "method": "ACH",
        "type": "Debit",
        "amount": 1500,
        "paymentDetails": {
            "name": "Ada Lovelace",
            "accountType": "Checking",
            "accountNumber": account_number,
            "routingNumber": ROUTING,
        },
        **saved,
    }
    return ok(client.put("/transactions", body, format="json"), 201)


@pytest.mark.usefixtures("ordinary_banking_day")
def test_the_walk_through_ends_with_the_developer_going_on(sandbox_client, settings):
    settings.WEBHOOK_ALLOW_PRIVATE_URLS = True
    routes = set(re.findall(r"\$API(/[a-z/-]+)", WALK_THROUGH))
    assert {"/sandbox/clock/advance", "/sandbox/risk/reset", "/risk/report", "/transactions"} <= routes

    # 1-3: a webhook receiver, a customer with a saved account the bank returns R01, a charge of it
    ok(
        sandbox_client.post(
            "/webhooks/endpoints", {"url": "http://127.0.0.1:9000/hooks", "eventTypes": ["*"]}, format="json"
        ),
        201,
    )
    customer = ok(
        sandbox_client.post(
            "/customers", {"firstName": "Ada", "lastName": "Lovelace", "email": "ada@example.com"}, format="json"
        ),
        201,
    )["customerUuid"]
    method = ok(
        sandbox_client.post(
            "/customers/payment-methods",
            {
                "customerUuid": customer,
                "type": "bank",
                "accountType": "Checking",
                "accountNumber": "00055501",
                "routingNumber": ROUTING,
            },
            format="json",
        ),
        201,
    )["paymentMethodUuid"]
    txn = _charge(sandbox_client, "00055501", customerUuid=customer, paymentMethodUuid=method)["uuid"]

    # 4-5: two banking days: the file is cut, the bank returns it R01; the events say so
    ok(sandbox_client.post("/sandbox/clock/advance", {"days": 2}, format="json"))
    assert ok(sandbox_client.get(f"/transactions/{txn}"))["status"] == "Returned"
    types = [event["type"] for event in ok(sandbox_client.get("/events", {"objectUuid": txn}))]
    assert "transaction.returned" in types

    # 6: the next debit is held, and its reason says how the hold is lifted; the API shows the hold
    held = _charge(sandbox_client, "12345678")
    assert held["status"] == "HELD" and held["holdCode"] == "RTN"
    assert "POST /sandbox/risk/reset" in held["holdReason"]
    holds = ok(sandbox_client.get("/risk/report"))["debitHolds"]
    assert [(hold["scope"], hold["liftedAt"]) for hold in holds] == [("company", None)]
    assert ok(sandbox_client.get("/risk/return-rates"))["overall"]["returns"] == 1

    # 7: the reset lifts every hold and starts the rates afresh; the developer goes on
    reset = ok(sandbox_client.post("/sandbox/risk/reset"))
    assert reset["holdsLifted"] == 1 and reset["debitsReleased"] == 1 and reset["returnRatesSince"]
    assert ok(sandbox_client.get(f"/transactions/{held['uuid']}"))["status"] == "Pending"
    assert not DebitHold.objects.filter(lifted_at__isnull=True).exists()
    rates = ok(sandbox_client.get("/risk/return-rates"))
    assert (rates["debits"], rates["overall"]["returns"]) == (0, 0)
    assert _charge(sandbox_client, "12345678")["status"] == "Pending"


@pytest.mark.usefixtures("ordinary_banking_day")
def test_after_a_reset_a_new_breach_holds_again(sandbox_client):
    _charge(sandbox_client, "00055503")
    ok(sandbox_client.post("/sandbox/clock/advance", {"days": 2}, format="json"))
    assert _charge(sandbox_client, "12345678")["status"] == "HELD"
    ok(sandbox_client.post("/sandbox/risk/reset"))

    _charge(sandbox_client, "00055502")
    ok(sandbox_client.post("/sandbox/clock/advance", {"days": 2}, format="json"))

    assert _charge(sandbox_client, "12345678")["status"] == "HELD"


def _walk_through_script(key: str, url: str) -> str:
    """The walk-through's shell block as written, but for its first lines: the key and the address of this server."""
    block = re.search(r"```sh\n(.*?)```", WALK_THROUGH, re.S).group(1)
    block, keys = re.subn(r"^KEY=.*$", f"KEY='{key}'", block, count=1, flags=re.M)
    block, apis = re.subn(r"^API=.*$", f"API={url}", block, count=1, flags=re.M)
    assert keys == apis == 1
    return "set -euo pipefail\n" + block


@pytest.mark.skipif(not (shutil.which("curl") and shutil.which("jq")), reason="the walk-through runs curl and jq")
@pytest.mark.usefixtures("ordinary_banking_day")
def test_the_docs_curl_lines_run_as_written_against_a_live_server(live_server, settings):
    settings.WEBHOOK_ALLOW_PRIVATE_URLS = True  # the docs' loopback receiver, as DEBUG allows it under make run
    # A transactional test's flush removes the live API-key group the migrations made; keys fail closed without it.
    ActionGroup.objects.get_or_create(name=LIVE_API_KEY_GROUP, defaults={"actions": list(ALL_ACTIONS)})
    key = factories.issue_api_key(factories.CompanyFactory(name="Demo Merchant", is_sandbox=True))
    assert key.raw_key.startswith("vk_test_")

    done = subprocess.run(  # noqa: S603 - bash runs the docs' own lines against this test's server
        ["bash", "-c", _walk_through_script(key.raw_key, live_server.url)],  # noqa: S607
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert '"Returned"' in out  # step 4
    assert '"transaction.returned"' in out  # step 5
    held = json.loads(re.search(r'\{\s*"status": "HELD".*?\}', out, re.S).group(0))  # step 6
    assert held["holdCode"] == "RTN" and "POST /sandbox/risk/reset" in held["holdReason"]
    assert '"scope": "company"' in out  # the report's debit holds
    reset = json.loads(out[out.rindex('{\n  "holdsLifted"') :])  # step 7
    assert reset["holdsLifted"] == 1 and reset["debitsReleased"] == 1 and reset["returnRatesSince"]
    assert not DebitHold.objects.filter(lifted_at__isnull=True).exists()
