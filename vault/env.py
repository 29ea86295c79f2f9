"""Typed readers for settings that come from the environment; a bad value fails start-up at once."""

from __future__ import annotations

import json
import os
import re
import secrets
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured


def env_value(name: str) -> str | None:
    """`NAME` from the environment, or the contents of the file named by `NAME_FILE` (how container platforms
    mount secrets; one trailing newline is dropped). Setting both is an error: which one wins would be a guess."""
    value = os.environ.get(name)
    file_name = os.environ.get(f"{name}_FILE")
    if file_name in (None, ""):
        return value
    if value not in (None, ""):
        raise ImproperlyConfigured(f"set {name} or {name}_FILE, not both")
    try:
        text = Path(file_name).read_text(encoding="utf-8")
    except OSError as exc:  # the message names the file, never its contents
        raise ImproperlyConfigured(f"{name}_FILE: cannot read {file_name} ({exc.strerror})") from None
    return text.removesuffix("\n").removesuffix("\r")


def env_str(name: str, default: str | None = None) -> str | None:
    value = env_value(name)
    return default if value in (None, "") else value


def env_choice(name: str, choices: tuple[str, ...], default: str) -> str:
    value = env_str(name, default)
    if value not in choices:
        raise ImproperlyConfigured(f"{name} must be one of {', '.join(choices)}, got {value!r}")
    return value


def env_bool(name: str, default: bool) -> bool:
    value = env_value(name)
    if value in (None, ""):
        return default
    if value in ("1", "true", "True", "yes"):
        return True
    if value in ("0", "false", "False", "no"):
        return False
    raise ImproperlyConfigured(f"{name} must be 0 or 1, got {value!r}")


def env_int(name: str, default: int, minimum: int = 0) -> int:
    value = env_value(name)
    if value in (None, ""):
        return default
    if not (value.isascii() and value.isdigit()) or int(value) < minimum:
        raise ImproperlyConfigured(f"{name} must be a whole number of at least {minimum}, got {value!r}")
    return int(value)


RATE_PERIODS = {
    "s": 1,
    "sec": 1,
    "second": 1,
    "m": 60,
    "min": 60,
    "minute": 60,
    "h": 3600,
    "hour": 3600,
    "d": 86400,
    "day": 86400,
}


def env_rate(name: str, default: str) -> tuple[int, int]:
    """A rate `N/period` (period s, min, hour or day, as DRF writes rates) -> (requests, window seconds)."""
    value = env_value(name) or default
    count, _, period = value.partition("/")
    if not (count.isascii() and count.isdigit() and int(count) > 0) or period not in RATE_PERIODS:
        raise ImproperlyConfigured(f"{name} must be a rate such as 600/min (periods: s, min, hour, day), got {value!r}")
    return int(count), RATE_PERIODS[period]


def proxy_ssl_header(name: str) -> tuple[str, str] | None:
    """`X-Forwarded-Proto` (meaning `X-Forwarded-Proto: https`) or `Header:value`, as Django's
    SECURE_PROXY_SSL_HEADER; unset means no header is trusted."""
    value = env_value(name)
    if value in (None, ""):
        return None
    header, _, expected = (part.strip() for part in value.partition(":"))
    if not re.fullmatch(r"[A-Za-z0-9-]+", header) or not re.fullmatch(r"[A-Za-z0-9]*", expected):
        raise ImproperlyConfigured(f"{name} must be a header name such as X-Forwarded-Proto, got {value!r}")
    return "HTTP_" + header.upper().replace("-", "_"), expected or "https"


def env_list(name: str, default: list[str] | None = None) -> list[str]:
    value = env_value(name)
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
        "IDEMPOTENCY_HASH_KEY": secrets.token_urlsafe(48),
    }


def dev_secrets(var_dir: Path) -> dict[str, str]:
    """Secrets for DEBUG=1 runs, generated once into var/ (never committed); safe when workers race. A file
    written before a secret was added gets the new one (old values kept: they decrypt existing rows)."""
    path = var_dir / "dev-secrets.json"
    var_dir.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        for _ in range(50):
            text = path.read_text()
            if text.strip():
                return _with_new_dev_secrets(path, json.loads(text))
            import time

            time.sleep(0.05)
        raise ImproperlyConfigured(f"{path} is empty") from None
    generated = _generate_dev_secrets()
    with os.fdopen(fd, "w") as handle:
        json.dump(generated, handle)
    return generated


def _with_new_dev_secrets(path: Path, stored: dict[str, str]) -> dict[str, str]:
    if set(_generate_dev_secrets()) <= set(stored):
        return stored
    import fcntl

    with open(path.with_suffix(".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # workers starting together add the same values
        stored = json.loads(path.read_text())
        merged = {**_generate_dev_secrets(), **stored}
        partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as handle:
            json.dump(merged, handle)
        os.replace(partial, path)
    return merged


def secret(name: str, debug: bool, var_dir: Path, minimum_length: int = 1) -> str:
    value = env_value(name)
    if value in (None, ""):
        if not debug:
            raise ImproperlyConfigured(f"{name} must be set when DEBUG=0 (or {name}_FILE, a file holding it)")
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
