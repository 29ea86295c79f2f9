"""POST /auth/login and POST /auth/refresh (CONTRACT 3), with a brute-force guard on login."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import authenticate
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView
from rest_framework_simplejwt.tokens import RefreshToken

from accounts.login_throttle import (
    login_attempt_reserve,
    login_attempt_succeeded,
    login_buckets,
    login_failure_log,
    login_rate_check,
)
from accounts.services import RefreshRefused, refresh_token_issue, refresh_token_rotate
from vault.errors import Throttled, Unauthenticated
from vault.openapi import error
from vault.serializers import StrictCharField, StrictSerializer


class LoginInput(StrictSerializer):
    email = StrictCharField(max_length=254)
    password = StrictCharField(max_length=256, trim_whitespace=False)


class RefreshInput(StrictSerializer):
    refreshToken = StrictCharField(max_length=4096)


class TokenOutput(serializers.Serializer):
    accessToken = serializers.CharField()
    refreshToken = serializers.CharField()
    tokenType = serializers.CharField()
    expiresIn = serializers.IntegerField()


def _token_body(refresh: RefreshToken) -> dict:
    return {
        "accessToken": str(refresh.access_token),
        "refreshToken": str(refresh),
        "tokenType": "Bearer",
        "expiresIn": int(settings.SIMPLE_JWT["ACCESS_TOKEN_LIFETIME"].total_seconds()),
    }


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
        retry_after = login_rate_check(request)
        if retry_after is not None:
            login_failure_log(request, email, "rate_limited")
            raise Throttled("Too many login attempts from this address; try again later.", retry_after=retry_after)
        buckets = login_buckets(request, email)
        retry_after = login_attempt_reserve(buckets=buckets)
        if retry_after is not None:
            login_failure_log(request, email, "locked")
            raise Throttled("Too many failed login attempts; try again later.", retry_after=retry_after)
        user = authenticate(request, email=email.lower(), password=password)
        if user is None or not user.is_active:
            login_failure_log(request, email, "bad_credentials")
            raise Unauthenticated("Invalid email or password.")
        login_attempt_succeeded(buckets=buckets)
        return Response(_token_body(refresh_token_issue(user=user)))


class RefreshView(APIView):
    public = True
    authentication_classes: list = []
    permission_classes: list = []

    @extend_schema(request=RefreshInput, responses={200: TokenOutput}, auth=[], operation_id="auth_refresh")
    def post(self, request):
        body = RefreshInput(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            refresh = refresh_token_rotate(raw_token=body.validated_data["refreshToken"])
        except RefreshRefused as exc:
            raise Unauthenticated(str(exc)) from None
        return Response(_token_body(refresh))
