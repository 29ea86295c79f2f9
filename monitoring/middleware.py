"""GET /health answers a probe that calls by a loopback address or by a host of HEALTH_PROBE_HOSTS, even where
ALLOWED_HOSTS does not list it (newcomer review 2026-12-07 O1: the runbook's own `curl http://127.0.0.1:8000/health`
got a bare 400, and so does a load balancer probing by IP). Every other route keeps Django's host validation."""

from __future__ import annotations

import ipaddress

from django.conf import settings
from django.http.request import split_domain_port, validate_host

from monitoring.views import health

HEALTH_PATH = "/health"


def _loopback(domain: str) -> bool:
    if domain == "localhost":
        return True
    try:
        return ipaddress.ip_address(domain.strip("[]")).is_loopback
    except ValueError:
        return False


def probe_host(request) -> bool:
    """Whether the request names a host Django would refuse and that a probe may use for /health."""
    domain, _ = split_domain_port(request.META.get("HTTP_HOST") or request.META.get("SERVER_NAME", ""))
    allowed = settings.ALLOWED_HOSTS or ([".localhost", "127.0.0.1", "[::1]"] if settings.DEBUG else [])
    if not domain or validate_host(domain, allowed):
        return False
    return _loopback(domain) or validate_host(domain, settings.HEALTH_PROBE_HOSTS)


class HealthProbeHostMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.path == HEALTH_PATH and probe_host(request):
            return health(request)
        return self.get_response(request)
