"""GET /health (anyone: load balancers and probes) and GET /metrics (Prometheus: METRICS_TOKEN as a Bearer
token; without a token configured, nobody, unless METRICS_ALLOW_LOOPBACK=1 opens it to loopback callers that came
through no proxy)."""

from __future__ import annotations

import hmac
import ipaddress

from django.conf import settings
from django.http import HttpResponse, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from monitoring.health import health_report
from monitoring.metrics import metrics_page
from vault.error_codes import ErrorCode
from vault.views import error_response


@never_cache
@require_GET
def health(request):
    healthy, body = health_report()
    return JsonResponse(body, status=200 if healthy else 503)


# What a proxy adds to the request it forwards: any of them means the caller is not this machine.
PROXY_HEADERS = ("HTTP_X_FORWARDED_FOR", "HTTP_FORWARDED", "HTTP_X_REAL_IP")


def _metrics_allowed(request) -> bool:
    token = settings.METRICS_TOKEN
    if token:
        sent = request.headers.get("Authorization", "").removeprefix("Bearer ").strip()
        return hmac.compare_digest(sent.encode(), token.encode())
    if not settings.METRICS_ALLOW_LOOPBACK:
        return False
    if any(header in request.META for header in PROXY_HEADERS):
        return False  # a proxy on this machine would make every caller look local
    try:
        return ipaddress.ip_address(request.META.get("REMOTE_ADDR", "")).is_loopback
    except ValueError:
        return False


@never_cache
@require_GET
def metrics(request):
    if not _metrics_allowed(request):
        return error_response(  # the error envelope, as every other refusal (newcomer review 2026-12-07 O11)
            403,
            ErrorCode.FORBIDDEN,
            "metrics need METRICS_TOKEN as a Bearer token (or METRICS_ALLOW_LOOPBACK=1 and a loopback caller)",
        )
    body, content_type = metrics_page()
    return HttpResponse(body, content_type=content_type)
