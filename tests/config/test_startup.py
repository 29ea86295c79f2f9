"""CONTRACT 1: with DEBUG=0 a missing secret stops start-up with a clear message, not a half-configured app."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography.fernet import Fernet
from django.conf import settings

pytestmark = pytest.mark.database_free

SECRETS = {
    "SECRET_KEY": "s" * 50,
    "FIELD_ENCRYPTION_KEYS": Fernet.generate_key().decode(),
    "BLIND_INDEX_KEY": "b" * 40,
    "JWT_SIGNING_KEY": "j" * 40,
    "IDEMPOTENCY_HASH_KEY": "i" * 40,
}


def _check(tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    return _manage(tmp_path, ["check"], env)


def _manage(tmp_path: Path, arguments: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    """manage.py in a clean environment: DEBUG off and only the variables given."""
    clean = {"PATH": os.environ.get("PATH", ""), "VAR_DIR": str(tmp_path / "var"), "DEBUG": "0", **env}
    return subprocess.run(  # noqa: S603 - fixed arguments
        [sys.executable, "manage.py", *arguments],
        cwd=Path(settings.BASE_DIR),
        env=clean,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize("missing", sorted(SECRETS))
def test_debug_0_with_a_missing_secret_fails_fast_naming_it(tmp_path, missing):
    env = {name: value for name, value in SECRETS.items() if name != missing}
    result = _check(tmp_path, **env)
    assert result.returncode != 0
    assert f"ImproperlyConfigured: {missing} must be set when DEBUG=0" in result.stderr
    assert not (tmp_path / "var" / "dev-secrets.json").exists(), "no dev secret may be generated with DEBUG=0"


def test_debug_0_with_a_short_secret_key_fails_fast(tmp_path):
    result = _check(tmp_path, **{**SECRETS, "SECRET_KEY": "short"})
    assert result.returncode != 0
    assert "ImproperlyConfigured: SECRET_KEY must be at least 32 characters" in result.stderr


def test_debug_0_with_every_secret_passes_the_check(tmp_path):
    result = _check(tmp_path, **SECRETS, ALLOWED_HOSTS="api.example.com")
    assert result.returncode == 0, result.stderr


def test_bad_debug_value_fails_fast(tmp_path):
    result = _check(tmp_path, **{**SECRETS, "DEBUG": "maybe"})
    assert result.returncode != 0
    assert "DEBUG must be 0 or 1" in result.stderr


@pytest.mark.parametrize(
    "keys",
    ["not-a-fernet-key", f"{Fernet.generate_key().decode()},short", " , "],
    ids=["not-a-key", "a-key-then-a-short-one", "blanks"],
)
def test_debug_0_with_a_bad_encryption_key_fails_fast_without_echoing_it(tmp_path, keys):
    result = _check(tmp_path, **{**SECRETS, "FIELD_ENCRYPTION_KEYS": keys})
    assert result.returncode != 0
    assert "ImproperlyConfigured: FIELD_ENCRYPTION_KEYS" in result.stderr
    assert "not-a-fernet-key" not in result.stderr


def test_debug_0_accepts_a_rotation_list_of_keys(tmp_path):
    keys = f"{Fernet.generate_key().decode()}, {Fernet.generate_key().decode()}"
    result = _check(tmp_path, **{**SECRETS, "FIELD_ENCRYPTION_KEYS": keys})
    assert result.returncode == 0, result.stderr


# --- production settings from the environment (issue 12 point 8; review L6) --------------------------------------

SHOWN = (
    "SECURE_HSTS_SECONDS",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS",
    "SECURE_SSL_REDIRECT",
    "SECURE_PROXY_SSL_HEADER",
    "CSRF_TRUSTED_ORIGINS",
    "SECRET_KEY",
    "FIELD_ENCRYPTION_KEYS",
    "BLIND_INDEX_KEY",
    "JWT_SIGNING_KEY",
    "IDEMPOTENCY_HASH_KEY",
    "DATABASES",
)
SHOW_SETTINGS = (
    "import json; from django.conf import settings; "
    f"print(json.dumps({{name: getattr(settings, name) for name in {SHOWN!r}}}, default=str))"
)


def _settings(tmp_path: Path, **env: str) -> dict:
    result = _manage(tmp_path, ["shell", "-c", SHOW_SETTINGS], env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_debug_0_defaults_to_hsts_for_a_year_and_https_only(tmp_path):
    shown = _settings(tmp_path, **SECRETS)
    assert shown["SECURE_HSTS_SECONDS"] == 365 * 24 * 3600
    assert shown["SECURE_SSL_REDIRECT"] is True
    assert shown["SECURE_PROXY_SSL_HEADER"] is None  # no client-sent header is trusted unless configured
    assert shown["CSRF_TRUSTED_ORIGINS"] == []


def test_deployment_settings_come_from_the_environment(tmp_path):
    shown = _settings(
        tmp_path,
        **SECRETS,
        SECURE_HSTS_SECONDS="600",
        SECURE_HSTS_INCLUDE_SUBDOMAINS="1",
        SECURE_SSL_REDIRECT="0",
        SECURE_PROXY_SSL_HEADER="X-Forwarded-Proto",
        CSRF_TRUSTED_ORIGINS="https://admin.example.com,https://ops.example.com",
    )
    assert shown["SECURE_HSTS_SECONDS"] == 600
    assert shown["SECURE_HSTS_INCLUDE_SUBDOMAINS"] is True
    assert shown["SECURE_SSL_REDIRECT"] is False
    assert shown["SECURE_PROXY_SSL_HEADER"] == ["HTTP_X_FORWARDED_PROTO", "https"]
    assert shown["CSRF_TRUSTED_ORIGINS"] == ["https://admin.example.com", "https://ops.example.com"]


def test_debug_1_sends_no_hsts_and_does_not_redirect(tmp_path):
    shown = _settings(tmp_path, DEBUG="1")
    assert (shown["SECURE_HSTS_SECONDS"], shown["SECURE_SSL_REDIRECT"]) == (0, False)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("SECURE_HSTS_SECONDS", "a year"),
        ("SECURE_PROXY_SSL_HEADER", "X-Forwarded-Proto: https; x"),
        ("SECURE_PROXY_SSL_HEADER", "X Forwarded Proto"),
        ("SECURE_SSL_REDIRECT", "sometimes"),
    ],
)
def test_bad_deployment_setting_fails_fast(tmp_path, name, value):
    result = _check(tmp_path, **{**SECRETS, name: value})
    assert result.returncode != 0
    assert f"ImproperlyConfigured: {name}" in result.stderr


def test_every_secret_can_be_read_from_a_file(tmp_path):
    files = tmp_path / "secrets"
    files.mkdir()
    env = {}
    for name, value in {**SECRETS, "DATABASE_URL": f"sqlite:///{tmp_path / 'from-file.sqlite3'}"}.items():
        (files / name).write_text(value + "\n")  # as a secret file usually ends
        env[f"{name}_FILE"] = str(files / name)
    shown = _settings(tmp_path, **env)
    for name, value in SECRETS.items():
        expected = [value] if name == "FIELD_ENCRYPTION_KEYS" else value
        assert shown[name] == expected, name
    assert shown["DATABASES"]["default"]["NAME"] == str(tmp_path / "from-file.sqlite3")


def test_a_secret_set_twice_or_in_a_missing_file_fails_fast_without_echoing_it(tmp_path):
    (tmp_path / "key").write_text(SECRETS["SECRET_KEY"])
    both = _check(tmp_path, **{**SECRETS, "SECRET_KEY_FILE": str(tmp_path / "key")})
    assert both.returncode != 0
    assert "ImproperlyConfigured: set SECRET_KEY or SECRET_KEY_FILE, not both" in both.stderr
    env = {name: value for name, value in SECRETS.items() if name != "JWT_SIGNING_KEY"}
    missing = _check(tmp_path, **env, JWT_SIGNING_KEY_FILE=str(tmp_path / "nope"))
    assert missing.returncode != 0
    assert "ImproperlyConfigured: JWT_SIGNING_KEY_FILE: cannot read" in missing.stderr
    assert SECRETS["SECRET_KEY"] not in both.stderr + missing.stderr


def _our_commands() -> list[str]:
    base = Path(settings.BASE_DIR)
    return sorted(
        path.stem
        for path in base.glob("*/management/commands/*.py")
        if not path.stem.startswith("_") and ".venv" not in path.parts
    )


def test_every_command_without_debug_answers_one_line_naming_the_missing_setting(tmp_path):
    # F10: an operator who forgot the environment gets the setting's name, never a 40-line traceback.
    commands = ["help", *_our_commands()]
    assert "originate" in commands and "create_staff_user" in commands
    for command in commands:
        result = _manage(tmp_path, [command], {})
        assert result.returncode == 1, (command, result.stderr)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in result.stderr, (command, result.stderr)
        assert "SECRET_KEY must be set when DEBUG=0" in lines[0] and "export DEBUG=1" in lines[0]
        assert result.stdout == ""


def test_a_command_names_the_next_missing_setting_once_the_first_is_set(tmp_path):
    result = _manage(tmp_path, ["originate"], {"SECRET_KEY": SECRETS["SECRET_KEY"]})
    assert result.returncode == 1 and len(result.stderr.strip().splitlines()) == 1
    assert "FIELD_ENCRYPTION_KEYS must be set" in result.stderr


@pytest.mark.parametrize(("debug", "allowed"), [("1", "True"), ("0", "False")])
def test_local_webhook_urls_are_allowed_by_default_with_debug_only(tmp_path, debug, allowed):
    # F16: `make run` (DEBUG=1) accepts a webhook to a local receiver without another setting.
    env = {"DEBUG": debug, **({} if debug == "1" else {**SECRETS, "ALLOWED_HOSTS": "api.example.com"})}
    script = "from django.conf import settings; print(settings.WEBHOOK_ALLOW_PRIVATE_URLS)"
    result = _manage(tmp_path, ["shell", "-c", script], env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == allowed
