"""Typed readers for settings that come from the environment; a bad value fails start-up at once."""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured


def env_str(name: str, default: str | None = None) -> str | None:
    value = os.environ.get(name)
    return default if value in (None, "") else value


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value in (None, ""):
        return default
    if value in ("1", "true", "True", "yes"):
        return True
    if value in ("0", "false", "False", "no"):
        return False
    raise ImproperlyConfigured(f"{name} must be 0 or 1, got {value!r}")


def env_int(name: str, default: int, minimum: int = 0) -> int:
    value = os.environ.get(name)
    if value in (None, ""):
        return default
    if not (value.isascii() and value.isdigit()) or int(value) < minimum:
        raise ImproperlyConfigured(f"{name} must be a whole number of at least {minimum}, got {value!r}")
    return int(value)


def env_list(name: str, default: list[str] | None = None) -> list[str]:
    value = os.environ.get(name)
    if value in (None, ""):
        return list(default or [])
    return [item.strip() for item in value.split(",") if item.strip()]


def _generate_dev_secrets() -> dict[str, str]:
    from cryptography.fernet import Fernet

    return {
        "SECRET_KEY": secrets.token_urlsafe(50),
        "FIELD_ENCRYPTION_KEYS": Fernet.generate_key().decode(),
        "BLIND_INDEX_KEY": secrets.token_urlsafe(48),
        "JWT_SIGNING_KEY": secrets.token_urlsafe(48),
    }


def dev_secrets(var_dir: Path) -> dict[str, str]:
    """Secrets for DEBUG=1 runs, generated once into var/ (never committed); safe when workers race."""
    path = var_dir / "dev-secrets.json"
    var_dir.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        for _ in range(50):
            text = path.read_text()
            if text.strip():
                return json.loads(text)
            import time

            time.sleep(0.05)
        raise ImproperlyConfigured(f"{path} is empty") from None
    generated = _generate_dev_secrets()
    with os.fdopen(fd, "w") as handle:
        json.dump(generated, handle)
    return generated


def secret(name: str, debug: bool, var_dir: Path, minimum_length: int = 1) -> str:
    value = os.environ.get(name)
    if value in (None, ""):
        if not debug:
            raise ImproperlyConfigured(f"{name} must be set when DEBUG=0")
        value = dev_secrets(var_dir)[name]
    if len(value) < minimum_length:
        raise ImproperlyConfigured(f"{name} must be at least {minimum_length} characters")
    return value


def fernet_keys(name: str, value: str) -> list[str]:
    """A comma list of Fernet keys (urlsafe base64 of 32 bytes), newest first; a bad one stops start-up
    here rather than at the first encryption. The message never echoes a key."""
    import base64
    import binascii

    keys = [item.strip() for item in value.split(",") if item.strip()]
    if not keys:
        raise ImproperlyConfigured(f"{name} must hold at least one key")
    for position, key in enumerate(keys, start=1):
        try:
            valid = len(base64.urlsafe_b64decode(key.encode())) == 32
        except (binascii.Error, ValueError):
            valid = False
        if not valid:
            raise ImproperlyConfigured(f"{name}: key {position} is not urlsafe base64 of 32 bytes (a Fernet key)")
    return keys
