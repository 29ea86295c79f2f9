"""Where a webhook may be sent: no server-side request forgery (CONTRACT 9).

A URL must be https on port 443 or 8443, and every address its host resolves to must be public (not
loopback, private, link-local, reserved, multicast, unspecified, nor one of the translation and benchmarking
ranges below, which Python 3.11's `is_global` lets through), checked when the endpoint is saved and again
before every delivery; the delivery then connects to the address that was checked, so a DNS answer that
changes in between (rebinding) cannot redirect it. The name is resolved with a deadline
(WEBHOOK_DNS_TIMEOUT_SECONDS), so a slow DNS server holds nobody. WEBHOOK_ALLOW_PRIVATE_URLS=1 (development,
tests) allows http, any port and local addresses."""

from __future__ import annotations

import ipaddress
import socket
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings

ALLOWED_PORTS = frozenset({443, 8443})
# Ranges that carry or stand for other addresses (6to4, NAT64, Teredo), IETF protocol assignments and the
# benchmarking range: `is_global` is True for some of them on Python 3.11, so they are refused by name.
DENIED_NETWORKS = tuple(
    ipaddress.ip_network(network)
    for network in (
        "2002::/16",  # 6to4: embeds any IPv4 address, 169.254.169.254 included
        "64:ff9b::/96",  # NAT64 well-known prefix
        "64:ff9b:1::/48",  # NAT64 local-use prefix
        "2001::/32",  # Teredo
        "192.0.0.0/24",  # IETF protocol assignments
        "198.18.0.0/15",  # benchmarking
        "100.64.0.0/10",  # carrier-grade NAT
    )
)
# getaddrinfo has no timeout of its own: it runs on these threads and is waited for at most the deadline. A
# resolution that outlives its deadline keeps its thread until the resolver gives up; the pool bounds that.
_resolver = ThreadPoolExecutor(max_workers=8, thread_name_prefix="dns")


class UnsafeDestination(ValueError):
    """The URL may not receive webhooks; the message says why without echoing anything secret."""


class UnresolvableDestination(UnsafeDestination):
    """The host did not resolve (no answer, or none before the deadline): a failed attempt, category dns."""


@dataclass(frozen=True)
class Destination:
    scheme: str
    host: str
    port: int
    target: str  # path and query, as sent on the request line
    address: str  # the checked IP address to connect to

    @property
    def wire_host(self) -> str:
        """The host as it goes on the wire (Host header, SNI, certificate check): IDNA-encoded ASCII."""
        return _ascii_host(self.host)

    @property
    def host_header(self) -> str:
        default = 443 if self.scheme == "https" else 80
        host = f"[{self.wire_host}]" if ":" in self.host else self.wire_host
        return host if self.port == default else f"{host}:{self.port}"


def _ascii_host(host: str) -> str:
    return host if host.isascii() else host.encode("idna").decode("ascii")


def _forbidden(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return (
        any(address in network for network in DENIED_NETWORKS if network.version == address.version)
        or not address.is_global
        or address.is_loopback
        or address.is_private
        or address.is_link_local
        or address.is_reserved
        or address.is_multicast
        or address.is_unspecified
    )


# A developer pointing a webhook at a local receiver learns the switch (on by default with DEBUG).
_LOCAL_HINT = " (a development server allows http and local addresses with WEBHOOK_ALLOW_PRIVATE_URLS=1)"


def _split(url: str, allow_private: bool) -> tuple[str, str, int, str]:
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise UnsafeDestination("url is not a valid URL") from None
    scheme = parts.scheme.lower()
    allowed = ("https", "http") if allow_private else ("https",)
    if scheme not in allowed:
        raise UnsafeDestination(f"url must use https{_LOCAL_HINT}")
    if not parts.hostname:
        raise UnsafeDestination("url must name a host")
    if parts.username or parts.password:
        raise UnsafeDestination("url must not carry credentials")
    try:
        _ascii_host(parts.hostname)
    except UnicodeError:
        raise UnsafeDestination("url host is not a valid host name") from None
    port = port or (443 if scheme == "https" else 80)
    if not allow_private and port not in ALLOWED_PORTS:
        raise UnsafeDestination("url port must be 443 or 8443")
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return scheme, parts.hostname, port, target


def _addresses(host: str, port: int) -> list[str]:
    """The host's addresses, resolved within WEBHOOK_DNS_TIMEOUT_SECONDS."""
    lookup = _resolver.submit(socket.getaddrinfo, host, port, type=socket.SOCK_STREAM)
    try:
        infos = lookup.result(timeout=settings.WEBHOOK_DNS_TIMEOUT_SECONDS)
    except FutureTimeout:
        raise UnresolvableDestination("url host did not resolve in time") from None
    except (OSError, UnicodeError):
        raise UnresolvableDestination("url host does not resolve") from None
    return list(dict.fromkeys(info[4][0] for info in infos))


def destination_resolve(url: str, *, allow_private: bool | None = None) -> Destination:
    """The checked destination of `url`, or UnsafeDestination."""
    if allow_private is None:
        allow_private = settings.WEBHOOK_ALLOW_PRIVATE_URLS
    scheme, host, port, target = _split(url, allow_private)
    addresses = _addresses(host, port)
    if not addresses:
        raise UnresolvableDestination("url host does not resolve")
    if not allow_private:
        for address in addresses:
            if _forbidden(ipaddress.ip_address(address.split("%", 1)[0])):
                raise UnsafeDestination(
                    f"url resolves to a private, loopback, link-local or reserved address{_LOCAL_HINT}"
                )
    return Destination(scheme=scheme, host=host, port=port, target=target, address=addresses[0])
