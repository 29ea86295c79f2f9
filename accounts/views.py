"""POST /auth/login and POST /auth/refresh (CONTRACT 3), with a brute-force guard on login."""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.contrib.auth import authenticate
from django.core.cache import cache
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView
from rest_framework_simplejwt.exceptions import TokenError
from rest_framework_simplejwt.tokens import RefreshToken

from vault.errors import ApiError
from vault.openapi import error
from vault.serializers import StrictCharField, StrictSerializer


class LoginInput(StrictSerializer):
    email = StrictCharField(max_length=254)
    password = StrictCharField(max_length=256, trim_whitespace=False)


class RefreshInput(StrictSerializer):
    refreshToken = StrictCharField(max_length=4096)  # noqa: N815 - the wire name


class TokenOutput(serializers.Serializer):
    accessToken = serializers.CharField()  # noqa: N815
    refreshToken = serializers.CharField()  # noqa: N815
    tokenType = serializers.CharField()  # noqa: N815
    expiresIn = serializers.IntegerField()  # noqa: N815


def _token_body(refresh: RefreshToken) -> dict:
    return {
        "accessToken": str(refresh.access_token),
        "refreshToken": str(refresh),
        "tokenType": "Bearer",
        "expiresIn": int(settings.SIMPLE_JWT["ACCESS_TOKEN_LIFETIME"].total_seconds()),
    }


def _failure_keys(request, email: str) -> list[tuple[str, int]]:
    # Hashed: an email may be 254 characters, and the database cache silently drops keys past 255,
    # which would switch the guard off for long addresses.
    email_digest = hashlib.sha256(email.lower().encode()).hexdigest()
    address = request.META.get("REMOTE_ADDR", "unknown")
    return [
        (f"login-fail:email:{email_digest}", settings.LOGIN_FAILURE_LIMIT_PER_EMAIL),
        (f"login-fail:addr:{address}", settings.LOGIN_FAILURE_LIMIT_PER_ADDRESS),
    ]


def _reserve_attempt(keys: list[tuple[str, int]]) -> bool:
    """Count this attempt before the password is checked, so a burst of parallel guesses cannot all pass a
    check made before any of them failed (exact with Redis, whose incr is atomic). False: over a limit."""
    window = settings.LOGIN_FAILURE_WINDOW_SECONDS
    allowed = True
    for key, limit in keys:
        cache.add(key, 0, timeout=window)
        try:
            count = cache.incr(key)
        except ValueError:  # expired between add and incr
            cache.set(key, 1, timeout=window)
            count = 1
        # incr keeps the TTL on Redis but resets it to the default timeout on other backends: make it the window.
        cache.touch(key, timeout=window)
        allowed = allowed and count <= limit
    return allowed


def _release_after_success(keys: list[tuple[str, int]]) -> None:
    # A successful login clears the email's failures and hands back the address's reserved attempt,
    # so the counters hold failures (and refused attempts) only.
    (email_key, _), (address_key, _) = keys
    cache.delete(email_key)
    try:
        cache.decr(address_key)
    except ValueError:
        pass


class LoginView(APIView):
    public = True
    authentication_classes: list = []
    permission_classes: list = []

    @extend_schema(
        request=LoginInput,
        responses={200: TokenOutput, 429: error("Too many failed login attempts; retry after Retry-After seconds.")},
        auth=[],
        operation_id="auth_login",
    )
    def post(self, request):
        body = LoginInput(data=request.data)
        body.is_valid(raise_exception=True)
        email, password = body.validated_data["email"], body.validated_data["password"]
        keys = _failure_keys(request, email)
        if not _reserve_attempt(keys):
            raise ApiError(
                "Too many failed login attempts; try again later.",
                status=429,
                code="throttled",
                headers={"Retry-After": str(settings.LOGIN_FAILURE_WINDOW_SECONDS)},
            )
        user = authenticate(request, email=email.lower(), password=password)
        if user is None or not user.is_active:
            raise ApiError("Invalid email or password.", status=401, code="authentication_failed")
        _release_after_success(keys)
        return Response(_token_body(RefreshToken.for_user(user)))


class RefreshView(APIView):
    public = True
    authentication_classes: list = []
    permission_classes: list = []

    @extend_schema(request=RefreshInput, responses={200: TokenOutput}, auth=[], operation_id="auth_refresh")
    def post(self, request):
        body = RefreshInput(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            refresh = RefreshToken(body.validated_data["refreshToken"])
        except TokenError:
            raise ApiError("Invalid or expired refresh token.", status=401, code="authentication_failed") from None
        return Response(_token_body(refresh))
