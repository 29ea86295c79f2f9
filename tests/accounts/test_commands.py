"""Ops commands (CONTRACT 2): one JSON object on stdout; bad arguments are a CommandError, nothing written."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from io import StringIO
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError
from rest_framework.test import APIClient

from accounts.actions import ALL_ACTIONS, Action
from accounts.models import ApiKey, Company, Membership, User
from config.management.commands.bootstrap_demo import DEMO_KEY_NAME
from tests import factories
from tests.accounts.conftest import set_live_actions

pytestmark = pytest.mark.django_db


def run(*args: str) -> dict:
    out = StringIO()
    call_command(*args, stdout=out)
    lines = out.getvalue().strip().splitlines()
    assert len(lines) == 1, out.getvalue()
    return json.loads(lines[0])


def _probe(authorization: str):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=authorization)
    return client.get("/probe/reports")


# --- create_company ---------------------------------------------------------------------------------------


def test_create_company_prints_its_uuid_and_stores_limits():
    out = run("create_company", "--name", "Acme", "--hold-over", "500", "--decline-over", "900", "--staged")
    assert set(out) == {"companyUuid"}
    company = Company.objects.get(uuid=out["companyUuid"])
    assert (
        company.name,
        company.merchant_settings.hold_over,
        company.merchant_settings.decline_over,
        company.staged_rollout,
    ) == ("Acme", 500, 900, True)


def test_create_company_defaults_to_contract_limits_and_not_staged():
    company = Company.objects.get(uuid=run("create_company", "--name", "Acme")["companyUuid"])
    assert (company.merchant_settings.hold_over, company.merchant_settings.decline_over, company.staged_rollout) == (
        1_000_000,
        2_500_000,
        False,
    )


@pytest.mark.parametrize(
    "args",
    [
        ("--name", ""),
        ("--name", "   "),
        ("--name", "x" * 256),
        ("--name", "Acme", "--hold-over", "-1"),
        ("--name", "Acme", "--decline-over", "lots"),
        (),
    ],
)
def test_create_company_with_bad_arguments_is_command_error(args):
    with pytest.raises(CommandError):
        call_command("create_company", *args, stdout=StringIO())
    assert not Company.objects.exists()


# --- create_api_key ---------------------------------------------------------------------------------------


@pytest.mark.usefixtures("probe_urls")
def test_create_api_key_prints_a_working_key_once(company):
    out = run("create_api_key", "--company", str(company.uuid), "--name", "checkout")
    assert set(out) == {"apiKey", "authorization", "prefix"}
    api_key = ApiKey.objects.get(prefix=out["prefix"])
    assert (api_key.company, api_key.name, api_key.rollout_allowed) == (company, "checkout", False)
    assert out["apiKey"].startswith(f"vk_{out['prefix']}_")
    assert out["apiKey"] not in str(ApiKey.objects.filter(pk=api_key.pk).values().get())
    assert _probe(out["authorization"]).status_code == 200


def test_create_api_key_sets_the_rollout_flag(company):
    out = run("create_api_key", "--company", str(company.uuid), "--rollout-allowed")
    assert ApiKey.objects.get(prefix=out["prefix"]).rollout_allowed is True


def test_create_api_key_accepts_actions_the_key_will_have(company):
    out = run("create_api_key", "--company", str(company.uuid), "--actions", ",".join(ALL_ACTIONS))
    assert ApiKey.objects.filter(prefix=out["prefix"]).exists()


def test_create_api_key_with_gated_actions_for_a_staged_company_needs_rollout_flag():
    company = factories.CompanyFactory(staged_rollout=True)
    with pytest.raises(CommandError, match="--rollout-allowed"):
        call_command("create_api_key", "--company", str(company.uuid), "--actions", "CreateCustomer", stdout=StringIO())
    out = run("create_api_key", "--company", str(company.uuid), "--actions", "CreateCustomer", "--rollout-allowed")
    assert ApiKey.objects.get(prefix=out["prefix"]).rollout_allowed is True


def test_create_api_key_refuses_actions_missing_from_the_live_group(company):
    set_live_actions([a for a in ALL_ACTIONS if a != Action.VIEW_REPORTS])
    with pytest.raises(CommandError, match="ViewReports"):
        call_command("create_api_key", "--company", str(company.uuid), "--actions", "ViewReports", stdout=StringIO())
    assert not ApiKey.objects.exists()


@pytest.mark.parametrize(
    ("company_arg", "extra", "message"),
    [
        ("not-a-uuid", (), "must be a company UUID"),
        (str(uuid.UUID(int=41)), (), "no company"),  # a fixed id: xdist workers collect the same tests
        (None, ("--actions", "CreateCustomer,Teleport"), "unknown actions: Teleport"),
        (None, ("--actions", " , "), "at least one"),
        (None, ("--name", "n" * 101), "name"),
    ],
)
def test_create_api_key_with_bad_arguments_is_command_error(company, company_arg, extra, message):
    with pytest.raises(CommandError, match=message):
        call_command("create_api_key", "--company", company_arg or str(company.uuid), *extra, stdout=StringIO())
    assert not ApiKey.objects.exists()


# --- create_user ------------------------------------------------------------------------------------------


def test_create_user_prints_id_and_email_and_can_log_in(company, anonymous_client):
    out = run(
        "create_user", "--email", "Ops@Example.com", "--password", "long enough secret", "--company", str(company.uuid)
    )
    assert set(out) == {"userId", "email"} and out["email"] == "ops@example.com"
    membership = Membership.objects.select_related("role").get(user_id=out["userId"], company=company)
    assert membership.role.name == "admin"
    login = anonymous_client.post(
        "/auth/login", {"email": "ops@example.com", "password": "long enough secret"}, format="json"
    )
    assert login.status_code == 200


def test_create_user_with_a_role(company):
    out = run(
        "create_user",
        "--email",
        "r@example.com",
        "--password",
        "long enough secret",
        "--company",
        str(company.uuid),
        "--role",
        "reporting",
    )
    assert Membership.objects.get(user_id=out["userId"]).role.name == "reporting"


def test_create_user_for_an_existing_email_adds_a_membership_and_keeps_the_password(company, other_company):
    first = run(
        "create_user", "--email", "x@example.com", "--password", "long enough secret", "--company", str(company.uuid)
    )
    second = run(
        "create_user",
        "--email",
        "x@example.com",
        "--password",
        "another long secret",
        "--company",
        str(other_company.uuid),
        "--role",
        "support",
    )
    assert first["userId"] == second["userId"]
    user = User.objects.get(pk=first["userId"])
    assert user.check_password("long enough secret")
    assert sorted(user.memberships.values_list("role__name", flat=True)) == ["admin", "support"]


@pytest.mark.parametrize(
    ("company_arg", "extra", "message"),
    [
        ("not-a-uuid", (), "must be a company UUID"),
        (str(uuid.UUID(int=41)), (), "no company"),  # a fixed id: xdist workers collect the same tests
        (None, ("--role", "overlord"), "unknown role 'overlord'"),
        (None, ("--email", "not-an-email"), "email"),
        (None, ("--password", "short"), "too short"),
    ],
)
def test_create_user_with_bad_arguments_is_command_error(company, company_arg, extra, message):
    args = {"--email": "u@example.com", "--password": "long enough secret", "--role": "admin"}
    args.update(dict(zip(extra[::2], extra[1::2], strict=True)))
    flat = [item for pair in args.items() for item in pair]
    with pytest.raises(CommandError, match=message):
        call_command("create_user", "--company", company_arg or str(company.uuid), *flat, stdout=StringIO())
    assert not User.objects.exists()


# --- set_rollout ------------------------------------------------------------------------------------------


def test_set_rollout_turns_staged_rollout_on_and_off(company):
    assert run("set_rollout", "--company", str(company.uuid), "--staged") == {
        "companyUuid": str(company.uuid),
        "staged": True,
    }
    company.refresh_from_db()
    assert company.staged_rollout is True
    assert run("set_rollout", "--company", str(company.uuid), "--not-staged")["staged"] is False
    company.refresh_from_db()
    assert company.staged_rollout is False


@pytest.mark.parametrize(
    "args",
    [
        ("--company", "nope", "--staged"),
        ("--company", str(uuid.UUID(int=7)), "--staged"),
        ("--staged",),
        ("--company", "COMPANY"),
        ("--company", "COMPANY", "--staged", "--not-staged"),
    ],
)
def test_set_rollout_with_bad_arguments_is_command_error(company, args):
    args = tuple(str(company.uuid) if arg == "COMPANY" else arg for arg in args)
    with pytest.raises(CommandError):
        call_command("set_rollout", *args, stdout=StringIO())
    company.refresh_from_db()
    assert company.staged_rollout is False


# --- bootstrap_demo ---------------------------------------------------------------------------------------


@pytest.mark.usefixtures("probe_urls")
@pytest.mark.usefixtures("debug_mode")
def test_bootstrap_demo_prints_a_login_and_a_key_that_work(anonymous_client):
    out = run("bootstrap_demo")
    assert _probe(out["authorization"]).status_code == 200
    login = anonymous_client.post("/auth/login", {"email": out["email"], "password": out["password"]}, format="json")
    assert login.status_code == 200
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {login.json()['data']['accessToken']}")
    assert client.get(f"/probe/reports?entityUuid={out['companyUuid']}").status_code == 200
    membership = Membership.objects.select_related("role", "company").get(user__email=out["email"])
    assert (str(membership.company.uuid), membership.role.name) == (out["companyUuid"], "admin")


@pytest.mark.usefixtures("probe_urls")
@pytest.mark.usefixtures("debug_mode")
def test_bootstrap_demo_twice_keeps_one_company_one_user_and_the_same_key(settings, tmp_path):
    # F3: a demo key saved in a client's .env survives `make run` restarts; --rotate-key replaces it.
    settings.VAR_DIR = tmp_path
    first = run("bootstrap_demo")
    second = run("bootstrap_demo")
    assert first["companyUuid"] == second["companyUuid"] and first["userId"] == second["userId"]
    assert Company.objects.count() == 1 and User.objects.count() == 1
    assert second["apiKey"] == first["apiKey"] and _probe(first["authorization"]).status_code == 200
    assert (tmp_path / "demo-api-key").stat().st_mode & 0o777 == 0o600
    rotated = run("bootstrap_demo", "--rotate-key")
    live = ApiKey.objects.filter(name=DEMO_KEY_NAME, revoked_at__isnull=True)
    assert list(live.values_list("prefix", flat=True)) == [rotated["prefix"]]
    assert _probe(first["authorization"]).status_code == 401
    assert _probe(rotated["authorization"]).status_code == 200
    assert run("bootstrap_demo")["apiKey"] == rotated["apiKey"]


def test_bad_argument_exits_non_zero_with_the_message_on_stderr(tmp_path):
    env = {"PATH": os.environ.get("PATH", ""), "DEBUG": "1", "VAR_DIR": str(tmp_path)}
    result = subprocess.run(  # noqa: S603 - fixed arguments
        [sys.executable, "manage.py", "set_rollout", "--company", "nope", "--staged"],
        cwd=Path(settings.BASE_DIR),
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode != 0
    assert result.stdout == ""
    assert "CommandError: --company must be a company UUID" in result.stderr


@pytest.mark.usefixtures("debug_mode")
def test_bootstrap_demo_seeds_customers_charges_and_reporting_rows_once(settings, tmp_path):
    settings.VAR_DIR = tmp_path
    first = run("bootstrap_demo")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=first["authorization"])
    customers = client.get("/customers?page=0&pageSize=10").json()
    assert customers["meta"]["pagination"]["totalFilteredRows"] == 3
    report = client.get("/reporting/transactions?page=0&pageSize=10&columns=status,returnCode").json()
    total = report["meta"]["pagination"]["totalRows"]
    assert total >= 500
    run("bootstrap_demo")  # the rerun keeps the key (DEBUG)
    assert client.get("/customers?page=0&pageSize=10").json()["meta"]["pagination"]["totalFilteredRows"] == 3
    assert client.get("/reporting/transactions?page=0&pageSize=1").json()["meta"]["pagination"]["totalRows"] == total
