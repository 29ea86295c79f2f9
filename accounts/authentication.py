"""The two credentials of SPEC 5: Basic API key and Bearer JWT (CONTRACT 3)."""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from datetime import timedelta

from django.db.models import Q
from django.utils import timezone
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework_simplejwt.authentication import JWTAuthentication

from accounts.models import ApiKey, Company
from accounts.selectors import api_key_authenticated, api_key_used
from accounts.services import hash_api_key, split_api_key, token_matches_password

LAST_USED_RESOLUTION = timedelta(minutes=1)


@dataclass(frozen=True)
class ApiKeyPrincipal:
    """request.user for an API-key caller: the merchant is the key's company."""

    api_key: ApiKey

    is_authenticated = True
    is_anonymous = False

    @property
    def company(self) -> Company:
        return self.api_key.company

    def __str__(self) -> str:
        return f"api-key:{self.api_key.prefix}"


def _decode_basic(token: bytes) -> str | None:
    try:
        decoded = base64.b64decode(token, validate=True).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    # base64("<key>:") as HTTP Basic with an empty password, or base64 of the bare key.
    return decoded[:-1] if decoded.endswith(":") else decoded


def _touch_last_used(api_key: ApiKey) -> None:
    # Compare-and-set at one-minute resolution: one small write a minute per key, not one per request.
    now = timezone.now()
    if api_key.last_used_at is None or now - api_key.last_used_at > LAST_USED_RESOLUTION:
        stale = Q(last_used_at__isnull=True) | Q(last_used_at__lt=now - LAST_USED_RESOLUTION)
        ApiKey.objects.filter(stale, pk=api_key.pk).update(last_used_at=now)
        # Written here or by another process within the minute: either way this process need not try again.
        api_key.last_used_at = now
        api_key_used(api_key)


# The key itself after `Basic`, not base64 of it (newcomer review 2026-12-07 D4: a bare "Invalid API key." for a
# key that works everywhere else). Said without checking the key, as API_KEY_AS_BEARER.
API_KEY_NOT_ENCODED = (
    "Invalid API key: Basic takes base64(<apiKey>:), the key as the user name with an empty password, not the key "
    'itself (curl -u "$KEY:" encodes it).'
)


def _looks_like_api_key(token: bytes) -> bool:
    try:
        return split_api_key(token.decode()) is not None
    except UnicodeDecodeError:
        return False


class ApiKeyAuthentication(BaseAuthentication):
    keyword = b"basic"
    failure = "Invalid API key."

    def authenticate(self, request):
        auth = get_authorization_header(request).split()
        if not auth or auth[0].lower() != self.keyword:
            return None
        if len(auth) != 2:
            raise exceptions.AuthenticationFailed(self.failure)
        raw_key = _decode_basic(auth[1])
        parts = split_api_key(raw_key) if raw_key else None
        if parts is None:
            if raw_key is None and _looks_like_api_key(auth[1]):
                raise exceptions.AuthenticationFailed(API_KEY_NOT_ENCODED)
            raise exceptions.AuthenticationFailed(self.failure)
        api_key = api_key_authenticated(parts[0], hash_api_key(raw_key))
        if api_key is None:
            raise exceptions.AuthenticationFailed(self.failure)
        if api_key.is_revoked:
            raise exceptions.AuthenticationFailed("API key has been revoked.")
        _touch_last_used(api_key)
        return ApiKeyPrincipal(api_key), api_key

    def authenticate_header(self, request):
        return 'Basic realm="api"'


BEARER_FAILURE = "Invalid or expired token."
# Stripe's habit: the API key sent as a Bearer token. Said without checking the key, so it tells nothing of it.
API_KEY_AS_BEARER = (
    "Invalid or expired token: this looks like an API key, which goes in Basic auth as the user name with an empty "
    "password (Authorization: Basic base64(<apiKey>:)); Bearer takes a token from POST /auth/login."
)


class CompanyJWTAuthentication(JWTAuthentication):
    """simplejwt's Bearer authentication; the company comes from `entityUuid`, checked by the permission."""

    def authenticate(self, request):
        try:
            return super().authenticate(request)
        except exceptions.AuthenticationFailed as exc:
            parts = (self.get_header(request) or b"").split()
            looks_like_key = len(parts) == 2 and split_api_key(parts[1].decode(errors="replace")) is not None
            raise exceptions.AuthenticationFailed(API_KEY_AS_BEARER if looks_like_key else BEARER_FAILURE) from exc

    def get_user(self, validated_token):
        user = super().get_user(validated_token)
        # Access tokens issued before a password change stop working too, not only after their 15 minutes.
        if not token_matches_password(validated_token, user):
            raise exceptions.AuthenticationFailed(BEARER_FAILURE)
        return user


class ApiKeyAuthenticationScheme(OpenApiAuthenticationExtension):
    target_class = "accounts.authentication.ApiKeyAuthentication"
    name = "apiKey"

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "basic",
            "description": "API key as the user name with an empty password: `Basic base64(<apiKey>:)`.",
        }


class CompanyJWTAuthenticationScheme(OpenApiAuthenticationExtension):
    target_class = "accounts.authentication.CompanyJWTAuthentication"
    name = "bearerJWT"

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "bearerFormat": "JWT",
            "description": "Token from POST /auth/login; every request also needs `?entityUuid=<companyUuid>`.",
        }
