"""Nothing stays Pending forever: every (method, status) pair either has a command or route that moves it on,
or a reason why it is final (or never reached). Each move is driven through the real commands and routes."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

import pytest
from django.test import Client

from tests import factories
from tests.transactions.ach.conftest import run
from transactions.models import Method, Settlement, Status, Transaction

pytestmark = pytest.mark.django_db

# Far enough ahead that every charge made now is due: a Monday morning and that evening after 17:00 Eastern.
ORIGINATE_AT = "2031-01-06T15:00:00Z"
SETTLE_AT = "2031-01-06T23:00:00Z"
HELD_AMOUNT = 1_500_000  # above the default hold limit, below the decline limit
DECLINED_AMOUNT = 3_000_000
BANK_DETAILS = {
    "name": "Eve Payer",
    "accountType": "Checking",
    "accountNumber": "123456789",
    "routingNumber": "021000021",
}
CARD_DETAILS = {"name": "Eve Payer", "cardNumber": "4111111111111111", "expirationDate": "12/39"}


@dataclass(frozen=True)
class Move:
    by: str  # the command or route that moves it on
    to: str


@dataclass(frozen=True)
class Final:
    why: str


@dataclass(frozen=True)
class Unreached:
    why: str


RETURNED = Final("returned by the payer's bank; a late return is gathered into a late-return settlement")
VOIDED = Final("voided before it was sent: no money moved")
REVERSED = Final("the reversal credit carries the refund on; a return arriving later is still recorded")
DECLINED = Final("refused by risk (or an expired card) when accepted: no money moved")

BATCHED = {
    Status.PENDING: Move("originate", Status.PROCESSING),
    Status.PROCESSING: Move("settle", Status.SETTLED),
    Status.SETTLED: Move("POST /transactions/{uuid}/reverse", Status.REVERSED),
    Status.RETURNED: RETURNED,
    Status.VOIDED: VOIDED,
    Status.REJECTED: Move("admin action restore_transactions", Status.PENDING),
    Status.REVERSED: REVERSED,
    Status.DECLINED: DECLINED,
    Status.HELD: Move("release_holds", Status.PENDING),
}
LIFECYCLE: dict[tuple[str, str], Move | Final | Unreached] = {
    **{(Method.ACH, status): step for status, step in BATCHED.items()},
    **{(Method.RCC, status): step for status, step in BATCHED.items()},
    (Method.RTP, Status.PENDING): Unreached("RTP settles when accepted: at creation, on release or on restore"),
    (Method.RTP, Status.PROCESSING): Unreached("RTP is never batched"),
    (Method.RTP, Status.SETTLED): Move("POST /transactions/{uuid}/reverse", Status.REVERSED),
    (Method.RTP, Status.RETURNED): Unreached("RTP payments do not come back in ACH return files"),
    (Method.RTP, Status.VOIDED): Unreached("only a Pending charge can be voided, and RTP is never Pending"),
    (Method.RTP, Status.REJECTED): Move("admin action restore_transactions", Status.SETTLED),
    (Method.RTP, Status.REVERSED): REVERSED,
    (Method.RTP, Status.DECLINED): DECLINED,
    (Method.RTP, Status.HELD): Move("release_holds", Status.SETTLED),
    (Method.CRD, Status.PENDING): Move("settle", Status.SETTLED),
    (Method.CRD, Status.PROCESSING): Unreached("a card is captured by settle, never batched"),
    (Method.CRD, Status.SETTLED): Move("POST /transactions/{uuid}/reverse", Status.REVERSED),
    (Method.CRD, Status.RETURNED): Unreached("card chargebacks are not part of this service"),
    (Method.CRD, Status.VOIDED): VOIDED,
    (Method.CRD, Status.REJECTED): Move("admin action restore_transactions", Status.PENDING),
    (Method.CRD, Status.REVERSED): REVERSED,
    (Method.CRD, Status.DECLINED): DECLINED,
    (Method.CRD, Status.HELD): Move("release_holds", Status.PENDING),
}


def test_the_lifecycle_table_names_every_method_and_status():
    assert set(LIFECYCLE) == {(method, status) for method in Method.values for status in Status.values}


class World:
    """Reaches a (method, status) through the real routes and commands, and performs a table's moves."""

    def __init__(self, api_client):
        self.api = api_client
        self.admin = Client()
        self.admin.force_login(factories.UserFactory(is_staff=True, is_superuser=True))

    def charge(self, method: str, amount: int = 1500) -> Transaction:
        details = CARD_DETAILS if method == Method.CRD else BANK_DETAILS
        body = {"method": method, "type": "Debit", "amount": amount, "paymentDetails": details}
        if method in (Method.ACH, Method.RCC):
            body["isSameDay"] = True  # settled by SETTLE_AT, the evening of the day ORIGINATE_AT sends it
        response = self.api.put("/transactions", body, format="json")
        assert response.status_code == 201, response.content
        return Transaction.objects.get(uuid=response.json()["data"]["uuid"])

    def reach(self, method: str, status: str) -> Transaction:
        if status == Status.HELD:
            return self.charge(method, HELD_AMOUNT)
        if status == Status.REJECTED:
            txn = self.reach(method, Status.HELD)
            self.admin_action("reject_transactions", txn)
        elif status == Status.PROCESSING:
            txn = self.reach(method, Status.PENDING)
            run("originate", "--at", ORIGINATE_AT)
        elif status == Status.SETTLED and method != Method.RTP:
            txn = self.reach(method, Status.PROCESSING if method in (Method.ACH, Method.RCC) else Status.PENDING)
            run("settle", "--at", SETTLE_AT)
        else:
            txn = self.charge(method)
        txn.refresh_from_db()
        assert (txn.method, txn.status) == (method, status)
        return txn

    def voided(self, method: str) -> Transaction:
        txn = self.reach(method, Status.PENDING)
        assert self.api.post(f"/transactions/{txn.uuid}/void").status_code == 200
        return txn

    def reversed(self, method: str) -> Transaction:
        txn = self.reach(method, Status.SETTLED)
        assert (
            self.api.post(f"/transactions/{txn.uuid}/reverse", {"reason": "duplicate"}, format="json").status_code
            == 201
        )
        return txn

    def admin_action(self, action: str, txn: Transaction) -> None:
        response = self.admin.post(
            "/admin/transactions/transaction/",
            {"action": action, "_selected_action": [str(txn.pk)], "post": "yes", "reason": "test"},
            follow=True,
        )
        assert response.status_code == 200

    def move(self, by: str, txn: Transaction) -> None:
        if by == "originate":
            run("originate", "--at", ORIGINATE_AT)
        elif by == "settle":
            run("settle", "--at", SETTLE_AT)
        elif by == "release_holds":
            assert run("release_holds", "--uuid", str(txn.uuid))["released"] == 1
        elif by == "admin action restore_transactions":
            self.admin_action("restore_transactions", txn)
        elif by == "POST /transactions/{uuid}/reverse":
            response = self.api.post(f"/transactions/{txn.uuid}/reverse", {"reason": "duplicate"}, format="json")
            assert response.status_code == 201, response.content
        else:
            raise AssertionError(f"no way to run {by!r}")


MOVES = [(method, status, step) for (method, status), step in LIFECYCLE.items() if isinstance(step, Move)]


@pytest.mark.parametrize(("method", "status", "step"), MOVES, ids=[f"{m}-{s}" for m, s, _ in MOVES])
def test_each_move_of_the_table_happens(api_client, method, status, step):
    world = World(api_client)
    txn = world.reach(method, status)

    world.move(step.by, txn)

    txn.refresh_from_db()
    assert txn.status == step.to, f"{method} {status} after {step.by}"
    if txn.status == Status.PENDING and method == Method.CRD:
        assert txn.authorized_at is not None  # so the next settle captures it


FINAL_REACH = {
    Status.DECLINED: lambda world, method: world.charge(method, DECLINED_AMOUNT),
    Status.VOIDED: lambda world, method: world.voided(method),
    Status.REVERSED: lambda world, method: world.reversed(method),
}
FINALS = [
    (method, status)
    for (method, status), step in LIFECYCLE.items()
    if isinstance(step, Final) and status in FINAL_REACH
]


@pytest.mark.parametrize(("method", "status"), FINALS, ids=[f"{m}-{s}" for m, s in FINALS])
def test_a_final_status_is_left_alone_by_every_command(api_client, method, status):
    world = World(api_client)
    txn = FINAL_REACH[status](world, method)
    txn.refresh_from_db()
    assert txn.status == status

    run("originate", "--at", ORIGINATE_AT)
    run("settle", "--at", SETTLE_AT)
    assert run("release_holds", "--uuid", str(txn.uuid))["released"] == 0

    txn.refresh_from_db()
    assert txn.status == status


def test_a_released_rtp_hold_settles_like_an_unheld_rtp_charge(api_client, company):
    world = World(api_client)
    unheld, held = world.charge(Method.RTP), world.charge(Method.RTP, HELD_AMOUNT)

    run("release_holds", "--uuid", str(held.uuid))

    held.refresh_from_db()
    assert held.status == Status.SETTLED and held.rtp_transaction_id.startswith("RTP")
    assert held.settlement_id == unheld.settlement_id
    assert held.hold.released_at is not None
    assert Settlement.objects.get().net_amount == 1500 + HELD_AMOUNT


def test_a_released_card_hold_is_authorised_then_captured_like_an_unheld_one(api_client):
    held = World(api_client).charge(Method.CRD, HELD_AMOUNT)
    run("release_holds", "--uuid", str(held.uuid))
    held.refresh_from_db()
    assert (held.status, held.auth_response_code) == (Status.PENDING, "00") and held.authorized_at is not None

    assert run("settle", "--at", SETTLE_AT)["transactions"] == 1

    held.refresh_from_db()
    assert held.status == Status.SETTLED and held.captured_at == datetime(2031, 1, 6, 23, tzinfo=UTC)


def test_a_released_card_hold_whose_card_expired_meanwhile_is_declined(api_client):
    held = World(api_client).charge(Method.CRD, HELD_AMOUNT)
    Transaction.objects.filter(pk=held.pk).update(card_expiration="01/20")

    run("release_holds", "--uuid", str(held.uuid))

    held.refresh_from_db()
    assert (held.status, held.failure_reason, held.authorized_at) == (Status.DECLINED, "card has expired", None)


def test_an_rtp_reversal_is_a_credit_that_settles_at_once(api_client):
    world = World(api_client)
    debit = world.charge(Method.RTP, 2500)

    response = api_client.post(f"/transactions/{debit.uuid}/reverse", {"reason": "duplicate"}, format="json")

    assert response.status_code == 201, response.content
    credit = Transaction.objects.get(uuid=response.json()["data"]["uuid"])
    assert (credit.type, credit.method, credit.status, credit.amount) == ("Credit", "RTP", "Settled", 2500)
    assert credit.rtp_transaction_id and credit.settlement_id == Transaction.objects.get(pk=debit.pk).settlement_id
    assert Settlement.objects.get().net_amount == 0


def test_a_card_reversal_is_a_refund_captured_by_the_next_settle(api_client):
    world = World(api_client)
    debit = world.reach(Method.CRD, Status.SETTLED)

    response = api_client.post(f"/transactions/{debit.uuid}/reverse", {"reason": "duplicate"}, format="json")

    assert response.status_code == 201, response.content
    refund = Transaction.objects.get(uuid=response.json()["data"]["uuid"])
    assert (refund.type, refund.status, refund.card_last_four) == ("Credit", "Pending", "1111")
    assert refund.authorized_at is not None
    run("settle", "--at", "2031-01-07T23:00:00Z")
    refund.refresh_from_db()
    assert refund.status == "Settled" and refund.captured_at is not None
    assert refund.settlement.net_amount == -1500
