"""The SFTP session to the bank (paramiko): its settings, read and checked before anything is touched, and the
server's host key pinned (BANK_SFTP_HOST_KEY), never trusted on first use."""

from __future__ import annotations

import base64
import hashlib
import logging
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

import paramiko
from django.conf import settings


class BankNotConfigured(Exception):
    """A setting of the bank connection is missing or malformed: the command says which, in one line."""


class BankConnectionError(Exception):
    """The bank's server could not be reached, refused us, or showed another host key."""


@dataclass(frozen=True)
class BankSettings:
    host: str
    port: int
    username: str
    password: str | None
    key_file: str | None
    host_key: paramiko.PKey
    outbound_dir: str
    inbound_dir: str
    timeout: float


def host_key_parse(text: str) -> paramiko.PKey:
    """An OpenSSH public key line (`ssh-ed25519 AAAA... [comment]`), as `bank_simulator` prints it and
    `ssh-keyscan` shows it."""
    parts = text.split()
    if len(parts) < 2:
        raise ValueError("not an OpenSSH public key line such as 'ssh-ed25519 AAAA...'")
    try:
        return paramiko.PKey.from_type_string(parts[0], base64.b64decode(parts[1], validate=True))
    except (ValueError, paramiko.SSHException) as exc:
        raise ValueError(f"not a public key paramiko reads ({exc})") from None


def fingerprint(key: paramiko.PKey) -> str:
    digest = base64.b64encode(hashlib.sha256(key.asbytes()).digest()).decode().rstrip("=")
    return f"{key.get_name()} SHA256:{digest}"


def bank_settings() -> BankSettings:
    """The connection's settings, or BankNotConfigured naming the first one missing or wrong."""
    url = settings.BANK_SFTP_URL
    if not url:
        raise BankNotConfigured(
            "BANK_SFTP_URL is not set (sftp://user@host:port): no bank connection is configured; nothing was sent "
            "or fetched, the files stay where they are"
        )
    parts = urlsplit(url)
    try:
        port = parts.port or 22
    except ValueError:
        port = None
    if parts.scheme != "sftp" or not parts.hostname or not parts.username or port is None:
        raise BankNotConfigured("BANK_SFTP_URL must look like sftp://user@host:port")
    if not (settings.BANK_SFTP_PASSWORD or settings.BANK_SFTP_KEY_FILE):
        raise BankNotConfigured("set BANK_SFTP_PASSWORD or BANK_SFTP_KEY_FILE (or their _FILE forms) for the bank")
    if not settings.BANK_SFTP_HOST_KEY:
        raise BankNotConfigured(
            "BANK_SFTP_HOST_KEY is not set: the bank server's public key must be pinned (it is never trusted on "
            "first use; docs/operations.md, 'The bank connection')"
        )
    try:
        host_key = host_key_parse(settings.BANK_SFTP_HOST_KEY)
    except ValueError as exc:
        raise BankNotConfigured(f"BANK_SFTP_HOST_KEY: {exc}") from None
    return BankSettings(
        host=parts.hostname,
        port=port,
        username=unquote(parts.username),
        password=settings.BANK_SFTP_PASSWORD,
        key_file=settings.BANK_SFTP_KEY_FILE,
        host_key=host_key,
        outbound_dir=settings.BANK_OUTBOUND_DIR.rstrip("/") or ".",
        inbound_dir=settings.BANK_INBOUND_DIR.rstrip("/") or ".",
        timeout=float(settings.BANK_SFTP_TIMEOUT_SECONDS),
    )


def _host_key_check(transport: paramiko.Transport, config: BankSettings) -> None:
    offered = transport.get_remote_server_key()
    if offered.get_name() != config.host_key.get_name() or offered.asbytes() != config.host_key.asbytes():
        raise BankConnectionError(
            f"refused {config.host}:{config.port}: its host key is {fingerprint(offered)}, not the pinned "
            f"BANK_SFTP_HOST_KEY ({fingerprint(config.host_key)}); if the bank changed its key, check the new one "
            "with the bank and pin it (docs/operations.md)"
        )


def _authenticate(transport: paramiko.Transport, config: BankSettings) -> None:
    """Our login, by key when BANK_SFTP_KEY_FILE is set, else by password; a refusal is one line naming what was
    offered (the key's fingerprint, never a secret)."""
    try:
        if config.key_file:
            try:
                key = paramiko.PKey.from_path(config.key_file)
            except (OSError, paramiko.SSHException) as exc:
                raise BankNotConfigured(f"BANK_SFTP_KEY_FILE: cannot read the key ({type(exc).__name__})") from None
            offered = f"the key in BANK_SFTP_KEY_FILE ({fingerprint(key)})"
            transport.auth_publickey(config.username, key)
        else:
            offered = "BANK_SFTP_PASSWORD"
            transport.auth_password(config.username, config.password)
    except paramiko.AuthenticationException as exc:
        said = str(exc).lower()
        if not transport.is_active() or "transport shut down" in said or "eof" in said or "timeout" in said:
            raise BankConnectionError(
                f"{config.host}:{config.port}: the connection dropped (or timed out) during login ({exc}); not a "
                "refusal of our credentials: the next run tries again"
            ) from None
        raise BankConnectionError(
            f"{config.host}:{config.port}: Authentication failed: the bank refused user {config.username!r} with "
            f"{offered}; check the user in BANK_SFTP_URL and that the bank has this key or password "
            "(docs/operations.md, 'Rotating keys')"
        ) from None


# An RSA host key is offered under the names of its signature algorithms (RFC 8332), never plain `ssh-rsa` first.
KEY_TYPE_NAMES = {"ssh-rsa": ("rsa-sha2-512", "rsa-sha2-256", "ssh-rsa")}


def _key_types_prefer(transport: paramiko.Transport, host_key: paramiko.PKey) -> None:
    """Ask for the pinned key's type first, so a server with several host keys shows the one we know."""
    options = transport.get_security_options()
    known = options.key_types
    pinned = tuple(name for name in KEY_TYPE_NAMES.get(host_key.get_name(), (host_key.get_name(),)) if name in known)
    try:
        options.key_types = (*pinned, *(kind for kind in known if kind not in pinned))
    except ValueError as exc:
        raise BankNotConfigured(f"BANK_SFTP_HOST_KEY: a key type this client cannot ask for ({exc})") from None


class _NoTracebacks(logging.Filter):
    """paramiko logs a failed connection's traceback line by line at ERROR; the commands say the cause in one line
    (CONTRACT 16), so those lines are not repeated on stderr."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno < logging.ERROR


logging.getLogger("paramiko.transport").addFilter(_NoTracebacks())


@contextmanager
def sftp_session(config: BankSettings) -> Iterator[paramiko.SFTPClient]:
    """An SFTP session to the bank whose host key is the pinned one; every request waits at most the timeout."""
    try:
        sock = socket.create_connection((config.host, config.port), timeout=config.timeout)
    except OSError as exc:
        raise BankConnectionError(f"cannot reach {config.host}:{config.port}: {exc.strerror or exc}") from None
    transport = paramiko.Transport(sock)
    try:
        # Ask for the pinned key's type first, so a server with several host keys shows the one we know.
        _key_types_prefer(transport, config.host_key)
        transport.banner_timeout = transport.auth_timeout = config.timeout
        transport.start_client(timeout=config.timeout)
        _host_key_check(transport, config)
        _authenticate(transport, config)
        client = paramiko.SFTPClient.from_transport(transport)
        client.get_channel().settimeout(config.timeout)
        yield client
    except (paramiko.SSHException, EOFError, OSError) as exc:
        raise BankConnectionError(f"{config.host}:{config.port}: {describe(exc)}") from None
    finally:
        transport.close()


def describe(exc: BaseException) -> str:
    """One line for an error of the connection, never a traceback."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
