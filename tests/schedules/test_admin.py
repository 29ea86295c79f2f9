"""Support and Risk see schedules in the admin, read-only except stop with a reason (the merchant hears
`schedule.stopped`); never added or deleted there; a staff user of no back-office group sees none of it. The groups
are the ones the migrations seeded (backoffice 0004)."""

from __future__ import annotations

import pytest

from events.models import Event
from schedules.models import Schedule
from tests.mandates.conftest import mandate_created
from tests.mandates.test_admin import _staff_client
from tests.schedules.test_schedules import schedule_created

pytestmark = pytest.mark.django_db

LIST = "/admin/schedules/schedule/"


@pytest.fixture
def schedule(api_client, account) -> Schedule:
    mandate = mandate_created(api_client, account)["mandateUuid"]
    return Schedule.objects.get(uuid=schedule_created(api_client, account, mandate)["uuid"])


def _stop(client, schedule: Schedule, reason: str):
    return client.post(
        LIST, {"action": "stop_selected", "_selected_action": [schedule.pk], "reason": reason, "index": 0}
    )


@pytest.mark.parametrize("group", ["Support", "Risk"])
def test_support_and_risk_see_schedules_and_cannot_delete_one(company, schedule, group):
    staff = _staff_client(company, f"{group.lower()}@example.com", [group])

    index = staff.get("/admin/").content.decode()
    assert 'href="/admin/schedules/schedule/"' in index and "Schedules" in index
    listing = staff.get(LIST)
    assert listing.status_code == 200 and str(schedule.uuid) in listing.content.decode()
    assert "$49.00" in listing.content.decode()
    page = staff.get(f"{LIST}{schedule.pk}/change/").content.decode()
    assert "View schedule" in page and 'name="_save"' not in page and f"{schedule.pk}/delete/" not in page
    assert 'value="delete_selected"' not in listing.content.decode()
    assert staff.post(f"{LIST}{schedule.pk}/delete/", {"post": "yes"}).status_code == 403
    assert staff.post(f"{LIST}{schedule.pk}/change/", {"amount": 1}).status_code == 403
    assert staff.get(f"{LIST}add/").status_code == 403
    assert Schedule.objects.get(pk=schedule.pk).amount == 4900


def test_support_stops_a_schedule_with_a_reason_and_the_merchant_hears_it(company, schedule):
    support = _staff_client(company, "support@example.com", ["Support"])

    _stop(support, schedule, reason="")
    schedule.refresh_from_db()
    assert schedule.status == Schedule.Status.ACTIVE  # no reason, no stop

    _stop(support, schedule, reason="payer called to end the gym debits")
    schedule.refresh_from_db()
    assert schedule.status == Schedule.Status.STOPPED
    assert schedule.status_reason.startswith("payer called to end the gym debits (admin:user:")
    (event,) = Event.objects.filter(type="schedule.stopped", company=company)
    assert event.data["status"] == "stopped"


def test_a_staff_user_of_no_group_neither_sees_nor_stops_schedules(company, schedule):
    nobody = _staff_client(company, "nobody@example.com", [])
    assert "/admin/schedules/" not in nobody.get("/admin/").content.decode()
    assert nobody.get(LIST).status_code == 403
    assert _stop(nobody, schedule, reason="not mine to do").status_code == 403
    schedule.refresh_from_db()
    assert schedule.status == Schedule.Status.ACTIVE
