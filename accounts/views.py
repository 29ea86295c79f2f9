"""POST /auth/login and POST /auth/refresh (CONTRACT 3), with a brute-force guard on login."""
from __future__ import annotations

from django.conf import settings
from django.contrib.auth import authenticate
from django.core.cache import cache
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView
from rest_framework_simplejwt.exceptions import TokenError
from rest_framework_simplejwt.tokens import RefreshToken

from vault.errors import ApiError
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
    address = request.META.get("REMOTE_ADDR", "unknown")
    return [
        (f"login-fail:email:{email.lower()}", settings.LOGIN_FAILURE_LIMIT_PER_EMAIL),
        (f"login-fail:addr:{address}", settings.LOGIN_FAILURE_LIMIT_PER_ADDRESS),
    ]


def _record_failure(keys: list[tuple[str, int]]) -> None:
    window = settings.LOGIN_FAILURE_WINDOW_SECONDS
    for key, _limit in keys:
        if not cache.add(key, 1, timeout=window):
            try:
                cache.incr(key)
            except ValueError:
                cache.set(key, 1, timeout=window)


class LoginView(APIView):
    public = True
    authentication_classes: list = []
    permission_classes: list = []

    def post(self, request):
        body = LoginInput(data=request.data)
        body.is_valid(raise_exception=True)
        email, password = body.validated_data["email"], body.validated_data["password"]
        keys = _failure_keys(request, email)
        if any((cache.get(key) or 0) >= limit for key, limit in keys):
            raise ApiError(
                "Too many failed login attempts; try again later.", status=429, code="throttled"
            )
        user = authenticate(request, email=email.lower(), password=password)
        if user is None or not user.is_active:
            _record_failure(keys)
            raise ApiError("Invalid email or password.", status=401, code="authentication_failed")
        for key, _limit in keys[:1]:
            cache.delete(key)
        return Response(_token_body(RefreshToken.for_user(user)))


class RefreshView(APIView):
    public = True
    authentication_classes: list = []
    permission_classes: list = []

    def post(self, request):
        body = RefreshInput(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            refresh = RefreshToken(body.validated_data["refreshToken"])
        except TokenError:
            raise ApiError("Invalid or expired refresh token.", status=401, code="authentication_failed") from None
        return Response(_token_body(refresh))
