"""Finance's queue in the admin (CONTRACT 19): exceptions with their age; a match by hand needs a reason and lines
and expectations of one payment; a write-off one person asks for is applied only when a second approves it (the
database refuses the same person as well). Other staff groups do not see the queue."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
from django.db import IntegrityError, transaction
from django.test import Client

from accounts.services import user_create
from backoffice.services import staff_access_grant
from reconciliation.models import ExpectedPayment, ItemState, Match, ReconciliationException, Statement, StatementLine

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("ordinary_banking_day")]

QUEUE = "/admin/reconciliation/reconciliationexception/"
PASSWORD = "a long finance password 19"
DAY = date(2026, 12, 7)
OPENED = datetime(2026, 12, 8, 12, tzinfo=UTC)


def _staff(company, email: str, group: str) -> tuple[Client, object]:
    user = user_create(email=email, password=PASSWORD, company=company, role_name="support")
    staff_access_grant(user=user, groups=[group])
    client = Client()
    assert client.login(email=email, password=PASSWORD)
    return client, user


@pytest.fixture
def exceptions() -> tuple[ReconciliationException, ReconciliationException]:
    statement = Statement.objects.create(
        name="S.bai2", sha256="0" * 64, format="bai2", account_last_four="3210", statement_date=DAY
    )
    line = StatementLine.objects.create(
        statement=statement, position=1, value_date=DAY, amount=7000, direction="credit", customer_reference="X.ach"
    )
    expected = ExpectedPayment.objects.create(
        source_key="file:x", kind="file_settlement", direction="credit", amount=7000, expected_on=DAY, reference="F.ach"
    )
    kinds = ReconciliationException.Kind
    return (
        ReconciliationException.objects.create(kind=kinds.UNMATCHED_LINE, line=line, opened_at=OPENED, due_on=DAY),
        ReconciliationException.objects.create(
            kind=kinds.UNSEEN_EXPECTED, expected=expected, opened_at=OPENED, due_on=DAY
        ),
    )


def _act(client: Client, action: str, chosen, reason: str = ""):
    return client.post(
        QUEUE,
        {"action": action, "_selected_action": [item.pk for item in chosen], "reason": reason, "index": 0},
        follow=True,
    )


def test_finance_sees_the_queue_with_age_and_other_staff_do_not(company, exceptions):
    finance, _ = _staff(company, "finance@example.com", "Finance")
    page = finance.get(QUEUE).content.decode()
    assert str(exceptions[0].uuid) in page and "Age (days)" in page and "X.ach" in page
    support, _ = _staff(company, "support@example.com", "Support")
    assert support.get(QUEUE).status_code == 403


def test_a_match_by_hand_needs_a_reason_and_one_payment(company, exceptions):
    finance, user = _staff(company, "finance@example.com", "Finance")
    assert "needs a reason" in _act(finance, "match_selected", exceptions).content.decode()
    assert "at least one statement line" in _act(finance, "match_selected", exceptions[:1], "x").content.decode()
    _act(finance, "match_selected", exceptions, "bank used the wrong file name; its support confirmed by phone")
    match = Match.objects.get()
    assert (match.rule, match.matched_by, match.reason[:8]) == ("by_hand", user, "bank use")
    assert set(ReconciliationException.objects.values_list("state", flat=True)) == {"matched"}
    assert StatementLine.objects.get().state == ExpectedPayment.objects.get().state == ItemState.MATCHED


def test_a_write_off_is_applied_only_by_a_second_person(company, exceptions):
    first, asker = _staff(company, "first@example.com", "Finance")
    second, approver = _staff(company, "second@example.com", "Finance")
    line_exception = exceptions[0]
    _act(first, "ask_write_off", [line_exception], "a stranger's credit: the bank reverses it on 12/9")
    line_exception.refresh_from_db()
    assert (line_exception.state, line_exception.write_off_asked_by) == ("write_off_asked", asker)
    refused = _act(first, "approve_write_off", [line_exception]).content.decode()
    assert "a second person" in refused
    line_exception.refresh_from_db()
    assert line_exception.state == "write_off_asked"
    _act(second, "approve_write_off", [line_exception])
    line_exception.refresh_from_db()
    assert (line_exception.state, line_exception.write_off_approved_by) == ("written_off", approver)
    assert StatementLine.objects.get().state == ItemState.WRITTEN_OFF


def test_the_database_refuses_a_write_off_approved_by_the_one_who_asked(company, exceptions):
    _, user = _staff(company, "finance@example.com", "Finance")
    exception = exceptions[0]
    exception.write_off_asked_by = exception.write_off_approved_by = user
    exception.write_off_reason, exception.state = "mine", "written_off"
    with pytest.raises(IntegrityError), transaction.atomic():
        exception.save()
