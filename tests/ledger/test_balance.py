"""GET /balance (CONTRACT 17): the company's five accounts, now and at any past moment, exact across checkpoints."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.management import call_command

from ledger.models import Account, BalanceCheckpoint
from ledger.selectors import balance_get
from tests import factories
from tests.ledger.conftest import T0, post, settle_into_pending

# The postings are dated at fixed instants and read as of others: the clock is pinned so "now" falls after them.
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("ordinary_banking_day")]


def test_balance_is_the_sum_of_the_company_postings(api_client, books):
    response = api_client.get("/balance")
    assert response.status_code == 200, response.content
    data = response.json()["data"]
    assert {k: v for k, v in data.items() if k != "asOf"} == {
        "currency": "USD",
        "incoming": 0,
        "pending": 6_000,
        "available": 4_000,
        "reserved": 0,
        "outgoing": 0,
    }
    assert data["asOf"].endswith("Z")


def test_balance_as_of_a_past_moment(api_client, company, books):
    settle_into_pending(company, 50, at=T0 + timedelta(days=1))
    before = api_client.get("/balance", {"asOf": "2026-11-02T14:59:59Z"}).json()["data"]
    assert (before["pending"], before["available"], before["asOf"]) == (0, 0, "2026-11-02T14:59:59.000000Z")
    that_day = api_client.get("/balance", {"asOf": "2026-11-02"}).json()["data"]
    assert (that_day["pending"], that_day["available"]) == (6_000, 4_000)
    assert api_client.get("/balance").json()["data"]["pending"] == 6_050


def test_checkpoints_change_no_balance_even_with_postings_dated_before_them(company, other_company, books):
    """A checkpoint holds the postings made up to its moment; one written later but dated earlier (a command run
    with --at in the past) still counts, now and as of any moment."""
    moments = [T0 - timedelta(hours=1), T0, T0 + timedelta(hours=1), T0 + timedelta(days=3)]
    expected = {moment: balance_get(company=company, moment=moment) for moment in [*moments, None]}
    call_command("checkpoint_ledger", "--at", "2026-11-02T16:00:00Z", stdout=open("/dev/null", "w"))
    assert BalanceCheckpoint.objects.filter(company=company, account=Account.PENDING).get().balance == 6_000
    settle_into_pending(company, 5, at=T0 - timedelta(minutes=30))  # dated before the checkpoint's moment
    settle_into_pending(company, 7, at=T0 + timedelta(days=2))

    def counted(moment, at) -> bool:
        return moment is None or moment >= at

    expected = {
        moment: {
            **balances,
            "pending": balances["pending"]
            + 5 * counted(moment, T0 - timedelta(minutes=30))
            + 7 * counted(moment, T0 + timedelta(days=2)),
        }
        for moment, balances in expected.items()
    }
    assert {moment: balance_get(company=company, moment=moment) for moment in expected} == expected
    assert balance_get(company=other_company)["pending"] == 777


def test_another_company_sees_only_its_own(other_api_client, books):
    assert other_api_client.get("/balance").json()["data"]["pending"] == 777


def test_bad_as_of_and_unknown_parameters_are_400(api_client):
    for params, field in [({"asOf": "yesterday"}, "asOf"), ({"asOf": "2026-13-01"}, "asOf"), ({"since": "x"}, "since")]:
        response = api_client.get("/balance", params)
        assert response.status_code == 400, response.content
        assert response.json()["errors"][0]["field"] == field


def test_balance_needs_credentials_and_view_balance(anonymous_client, company):
    assert anonymous_client.get("/balance").status_code == 401
    scoped = factories.issue_api_key(company, actions=["ViewReports"])
    client = anonymous_client
    client.credentials(HTTP_AUTHORIZATION=scoped.authorization)
    response = client.get("/balance")
    assert response.status_code == 403
    allowed = factories.issue_api_key(company, actions=["ViewBalance"])
    client.credentials(HTTP_AUTHORIZATION=allowed.authorization)
    assert client.get("/balance").status_code == 200


def test_an_adjustment_can_take_available_below_zero(api_client, company):
    post(company, [(Account.AVAILABLE, -300), (Account.BANK, 300)], type="return")
    assert api_client.get("/balance").json()["data"]["available"] == -300
