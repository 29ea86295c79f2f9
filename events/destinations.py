"""Where a webhook may be sent: no server-side request forgery (CONTRACT 9).

A URL must be https and every address its host resolves to must be public (not loopback, private,
link-local, reserved, multicast or unspecified), checked when the endpoint is saved and again before every
delivery; the delivery then connects to the address that was checked, so a DNS answer that changes in
between (rebinding) cannot redirect it. WEBHOOK_ALLOW_PRIVATE_URLS=1 (development, tests) allows http and
local addresses."""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings


class UnsafeDestination(ValueError):
    """The URL may not receive webhooks; the message says why without echoing anything secret."""


@dataclass(frozen=True)
class Destination:
    scheme: str
    host: str
    port: int
    target: str  # path and query, as sent on the request line
    address: str  # the checked IP address to connect to

    @property
    def host_header(self) -> str:
        default = 443 if self.scheme == "https" else 80
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == default else f"{host}:{self.port}"


def _forbidden(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return (
        not address.is_global
        or address.is_loopback
        or address.is_private
        or address.is_link_local
        or address.is_reserved
        or address.is_multicast
        or address.is_unspecified
    )


def _split(url: str, allow_private: bool) -> tuple[str, str, int, str]:
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise UnsafeDestination("url is not a valid URL") from None
    scheme = parts.scheme.lower()
    allowed = ("https", "http") if allow_private else ("https",)
    if scheme not in allowed:
        raise UnsafeDestination("url must use https")
    if not parts.hostname:
        raise UnsafeDestination("url must name a host")
    if parts.username or parts.password:
        raise UnsafeDestination("url must not carry credentials")
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return scheme, parts.hostname, port or (443 if scheme == "https" else 80), target


def destination_resolve(url: str, *, allow_private: bool | None = None) -> Destination:
    """The checked destination of `url`, or UnsafeDestination."""
    if allow_private is None:
        allow_private = settings.WEBHOOK_ALLOW_PRIVATE_URLS
    scheme, host, port, target = _split(url, allow_private)
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        raise UnsafeDestination("url host does not resolve") from None
    addresses = list(dict.fromkeys(info[4][0] for info in infos))
    if not addresses:
        raise UnsafeDestination("url host does not resolve")
    if not allow_private:
        for address in addresses:
            if _forbidden(ipaddress.ip_address(address.split("%", 1)[0])):
                raise UnsafeDestination("url resolves to a private, loopback, link-local or reserved address")
    return Destination(scheme=scheme, host=host, port=port, target=target, address=addresses[0])
