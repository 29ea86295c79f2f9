"""The one data migration helper for new actions: granted to who held the action it was split from (or to the admin
role and the live API-key group), taken back when reversed, and never twice."""

from __future__ import annotations

import pytest
from django.apps import apps

from accounts.action_grants import actions_granted
from accounts.models import ActionGroup, Role

pytestmark = pytest.mark.django_db


def _actions(model, name):
    return model.objects.get(name=name).actions


def test_a_split_action_goes_to_every_holder_of_the_old_one_and_comes_back_out():
    Role.objects.create(name="charger", actions=["CreateTransaction"])
    Role.objects.create(name="reader", actions=["ViewReports"])
    ActionGroup.objects.create(name="chargers", actions=["CreateTransaction", "Split"])
    operation = actions_granted(["Split"], holders_of="CreateTransaction")

    operation.code(apps, None)
    operation.code(apps, None)  # run again: nothing doubles

    assert _actions(Role, "charger") == ["CreateTransaction", "Split"]
    assert _actions(Role, "reader") == ["ViewReports"]
    assert _actions(ActionGroup, "chargers") == ["CreateTransaction", "Split"]
    operation.reverse_code(apps, None)
    assert _actions(Role, "charger") == ["CreateTransaction"]
    assert _actions(ActionGroup, "chargers") == ["CreateTransaction"]


def test_a_new_action_goes_to_the_admin_role_and_the_live_key_group_only():
    Role.objects.create(name="reader", actions=["ViewReports"])
    operation = actions_granted(["Brand", "New"])

    operation.code(apps, None)

    assert _actions(Role, "admin")[-2:] == ["Brand", "New"]
    assert _actions(ActionGroup, "live-api-key")[-2:] == ["Brand", "New"]
    assert _actions(Role, "reader") == ["ViewReports"]
