"""CONTRACT 1: with DEBUG=0 a missing secret stops start-up with a clear message, not a half-configured app."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography.fernet import Fernet
from django.conf import settings

SECRETS = {
    "SECRET_KEY": "s" * 50,
    "FIELD_ENCRYPTION_KEYS": Fernet.generate_key().decode(),
    "BLIND_INDEX_KEY": "b" * 40,
    "JWT_SIGNING_KEY": "j" * 40,
    "IDEMPOTENCY_HASH_KEY": "i" * 40,
}


def _check(tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    clean = {"PATH": os.environ.get("PATH", ""), "VAR_DIR": str(tmp_path / "var"), "DEBUG": "0", **env}
    return subprocess.run(  # noqa: S603 - fixed arguments
        [sys.executable, "manage.py", "check"],
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


@pytest.mark.parametrize("keys", ["not-a-fernet-key", f"{Fernet.generate_key().decode()},short", " , "])
def test_debug_0_with_a_bad_encryption_key_fails_fast_without_echoing_it(tmp_path, keys):
    result = _check(tmp_path, **{**SECRETS, "FIELD_ENCRYPTION_KEYS": keys})
    assert result.returncode != 0
    assert "ImproperlyConfigured: FIELD_ENCRYPTION_KEYS" in result.stderr
    assert "not-a-fernet-key" not in result.stderr


def test_debug_0_accepts_a_rotation_list_of_keys(tmp_path):
    keys = f"{Fernet.generate_key().decode()}, {Fernet.generate_key().decode()}"
    result = _check(tmp_path, **{**SECRETS, "FIELD_ENCRYPTION_KEYS": keys})
    assert result.returncode == 0, result.stderr
