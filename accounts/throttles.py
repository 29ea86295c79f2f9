"""API throttling (L6): requests per credential (an API key, or a user's Bearer token) and per company, counted in
fixed windows on the shared store (accounts/rate_windows.py), one round trip for both. Past a limit: 429
`throttled` with Retry-After. Runs after the permission class, which names the company."""

from __future__ import annotations

from django.conf import settings
from rest_framework.throttling import BaseThrottle

from accounts.authentication import ApiKeyPrincipal
from accounts.rate_windows import Limit, rate_windows_hit
from vault.errors import Throttled


def _credential(request) -> str:
    principal = request.user
    if isinstance(principal, ApiKeyPrincipal):
        return f"api-key:{principal.api_key.prefix}"
    return f"user:{principal.pk}"


class CredentialAndCompanyThrottle(BaseThrottle):
    def allow_request(self, request, view) -> bool:
        company = getattr(request, "company", None)
        if company is None:  # a public route (login, docs): guarded by its own limits
            return True
        per_credential, per_company = settings.API_THROTTLE_RATE_PER_CREDENTIAL, settings.API_THROTTLE_RATE_PER_COMPANY
        retry_after = rate_windows_hit(
            [Limit(_credential(request), *per_credential), Limit(f"company:{company.pk}", *per_company)]
        )
        if retry_after is not None:
            raise Throttled("Too many requests; retry after Retry-After seconds.", retry_after=retry_after)
        return True
