"""F1: a support agent can use the admin from the repository alone: seeded groups, create_staff_user, the demo
login (DEBUG only), the product's header, library internals hidden from staff."""

from __future__ import annotations

import io
import json

import pytest
from django.contrib.admin import site
from django.contrib.auth.models import Group, Permission
from django.core.management import CommandError, call_command
from django.test import Client
from django.utils.text import capfirst

from accounts.models import User
from backoffice.groups import STAFF_GROUPS, VIEWED_APPS
from config.management.commands.bootstrap_demo import DEMO_EMAIL, DEMO_PASSWORD
from tests import factories
from tests.transactions.ach.conftest import bank_txn
from vault.admin_scoping import SuperuserOnlyAdminMixin

pytestmark = pytest.mark.django_db


def _command(*args: str) -> dict:
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO())
    return json.loads(out.getvalue())


def _logged_in(email: str, password: str) -> Client:
    client = Client()
    assert client.login(email=email, password=password)
    return client


def test_the_migration_seeds_support_risk_and_finance_with_their_action_permissions():
    granted = {
        group.name: set(group.permissions.values_list("codename", flat=True))
        for group in Group.objects.filter(name__in=STAFF_GROUPS)
    }
    assert set(granted) == {"Support", "Risk", "Finance"}
    assert {"view_transaction", "view_customer", "view_paymentmethod", "release_hold"} <= granted["Support"]
    assert "reject_transaction" not in granted["Support"] and "manage_risk_controls" not in granted["Support"]
    assert {
        "reject_transaction",
        "restore_transaction",
        "manage_risk_controls",
        "lift_debithold",
        "activate_customer",
    } <= granted["Risk"]
    assert not {"lift_debithold", "activate_customer"} & granted["Support"]
    assert {"view_mandate", "revoke_mandate"} <= granted["Support"] & granted["Risk"]
    assert not {"change_mandate", "delete_mandate"} & (granted["Support"] | granted["Risk"])


def test_create_staff_user_makes_a_login_that_opens_the_admin_for_its_company_only(company, other_company):
    mine, theirs = bank_txn(company, amount=1_234_567), bank_txn(other_company)
    printed = _command(
        "create_staff_user", "--email", "Agent@Example.com", "--group", "Support", "--company", str(company.uuid)
    )
    assert printed["groups"] == ["Support"] and printed["companies"] == [str(company.uuid)]
    client = _logged_in("agent@example.com", printed["password"])
    index = client.get("/admin/").content.decode()
    assert "have permission to view or edit anything" not in index
    assert "Transactions" in index and "Customers" in index
    listing = client.get("/admin/transactions/transaction/").content.decode()
    assert str(mine.uuid) in listing and str(theirs.uuid) not in listing
    assert 'value="release_holds"' in listing and 'value="reject_transactions"' not in listing


def test_create_staff_user_refuses_an_unknown_group(company):
    with pytest.raises(CommandError):
        call_command(
            "create_staff_user", "--email", "a@example.com", "--group", "Wizards", "--company", str(company.uuid)
        )
    assert not User.objects.filter(email="a@example.com").exists()


def test_the_demo_login_opens_the_admin_with_debug(settings):
    settings.DEBUG = True
    _command("bootstrap_demo")
    client = _logged_in(DEMO_EMAIL, DEMO_PASSWORD)
    page = client.get("/admin/transactions/transaction/")
    assert page.status_code == 200 and "Demo Merchant" in page.content.decode()


def test_the_demo_login_gets_no_admin_without_debug(settings):
    settings.DEBUG = False
    _command("bootstrap_demo", "--allow-production")
    assert not User.objects.get(email=DEMO_EMAIL).is_staff


def test_the_header_names_the_product_and_library_tables_are_for_superusers_only(company):
    printed = _command(
        "create_staff_user", "--email", "risk@example.com", "--group", "Risk", "--company", str(company.uuid)
    )
    staff_index = _logged_in("risk@example.com", printed["password"]).get("/admin/").content.decode()
    assert "Vault payments back office" in staff_index and "Django administration" not in staff_index
    superuser = factories.UserFactory(is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(superuser)
    super_index = client.get("/admin/").content.decode()
    for library_table in ("Task results", "Blacklisted tokens", "Outstanding tokens"):
        assert library_table.lower() in super_index.lower()
        assert library_table.lower() not in staff_index.lower()


def test_a_fresh_databases_demo_login_sees_every_back_office_table_on_the_index(settings):
    # Each model a later migration adds to the groups' apps is granted by migrate itself, not first by
    # create_staff_user: the first admin session showed no "Account blocks" nor "Dishonored returns".
    every_view = Permission.objects.filter(content_type__app_label__in=VIEWED_APPS, codename__startswith="view_")
    for group in Group.objects.filter(name__in=STAFF_GROUPS):
        assert not {p.codename for p in set(every_view) - set(group.permissions.all())}, group.name
    settings.DEBUG = True
    _command("bootstrap_demo")
    index = _logged_in(DEMO_EMAIL, DEMO_PASSWORD).get("/admin/").content.decode()
    shown = {
        capfirst(model._meta.verbose_name_plural)
        for model, model_admin in site._registry.items()
        if model._meta.app_label in VIEWED_APPS and not isinstance(model_admin, SuperuserOnlyAdminMixin)
    }
    assert {"Account blocks", "Dishonored returns", "Mandates", "Customers"} <= shown
    for name in shown:
        assert f">{name}</a>" in index, name


def test_a_second_bootstrap_demo_leaves_the_demo_logins_admin_session_open(settings):
    settings.DEBUG = True
    _command("bootstrap_demo")
    client = _logged_in(DEMO_EMAIL, DEMO_PASSWORD)
    assert client.get("/admin/").status_code == 200
    _command("bootstrap_demo")  # the next make run
    response = client.get("/admin/")
    assert response.status_code == 200 and "Vault payments back office" in response.content.decode()
    assert _logged_in(DEMO_EMAIL, DEMO_PASSWORD)  # the printed password still works


def test_bootstrap_demo_puts_a_changed_demo_password_back(settings):
    settings.DEBUG = True
    _command("bootstrap_demo")
    user = User.objects.get(email=DEMO_EMAIL)
    user.set_password("someone-changed-it")
    user.save()
    _command("bootstrap_demo")
    assert _logged_in(DEMO_EMAIL, DEMO_PASSWORD)
