"""Writes for companies, users and API keys."""

from __future__ import annotations

import base64
import hashlib
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from uuid import UUID, uuid4

from django.conf import settings
from django.contrib.auth import password_validation
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.crypto import constant_time_compare, salted_hmac
from rest_framework_simplejwt.exceptions import TokenBackendError
from rest_framework_simplejwt.state import token_backend
from rest_framework_simplejwt.token_blacklist.models import BlacklistedToken, OutstandingToken
from rest_framework_simplejwt.tokens import RefreshToken

from accounts.actions import ALL_ACTIONS, DEFAULT_ROLES
from accounts.models import (
    MERCHANT_SETTINGS_FIELDS,
    ApiKey,
    Company,
    Membership,
    MerchantSettings,
    Role,
    User,
    merchant_settings_defaults,
)

API_KEY_PREFIX_BYTES = 6
API_KEY_SECRET_BYTES = 32


def hash_api_key(raw_key: str) -> str:
    # The key carries 256 bits of randomness, so a fast hash is enough: no offline guessing is feasible,
    # and each request pays microseconds instead of a password hash.
    return hashlib.sha256(raw_key.encode()).hexdigest()


LIVE_KEY_START = "vk_"
SANDBOX_KEY_START = "vk_test_"  # a sandbox company's keys: never confused with a live one


def split_api_key(raw_key: str) -> tuple[str, str] | None:
    """`vk_<prefix>_<secret>` or `vk_test_<prefix>_<secret>` -> (prefix, secret); None for anything else.
    The prefix only finds the row: the hash covers the whole key, so `test_` cannot be added to a live key."""
    if raw_key.startswith(SANDBOX_KEY_START):
        raw_key = LIVE_KEY_START + raw_key[len(SANDBOX_KEY_START) :]
    parts = raw_key.split("_", 2)  # the urlsafe secret may itself contain "_"
    if len(parts) != 3 or parts[0] != "vk" or not parts[1] or not parts[2]:
        return None
    return parts[1], parts[2]


def basic_authorization(raw_key: str) -> str:
    return "Basic " + base64.b64encode(f"{raw_key}:".encode()).decode()


@dataclass(frozen=True)
class IssuedApiKey:
    api_key: ApiKey
    raw_key: str

    @property
    def authorization(self) -> str:
        return basic_authorization(self.raw_key)


@transaction.atomic
def company_create(
    *,
    name: str,
    hold_over: int | None = None,
    decline_over: int | None = None,
    staged_rollout: bool = False,
    account_validation: str = MerchantSettings.AccountValidation.OFF,
    mandate_policy: str = MerchantSettings.MandatePolicy.OFF,
    sandbox: bool = False,
    uuid: UUID | None = None,
) -> Company:
    """A new company and its settings row: every company has one (`company.merchant_settings`), made here."""
    company = Company(name=name, staged_rollout=staged_rollout, is_sandbox=sandbox)
    if uuid is not None:
        company.uuid = uuid
    company.full_clean()
    company.save()
    fields = {}
    if hold_over is not None:
        fields["hold_over"] = hold_over
    if decline_over is not None:
        fields["decline_over"] = decline_over
    merchant_settings_create(
        company=company, account_validation=account_validation, mandate_policy=mandate_policy, **fields
    )
    return company


def merchant_settings_create(*, company: Company, **fields) -> MerchantSettings:
    """The settings row of a company just created: the defaults, or the MerchantSettings fields given."""
    unknown = sorted(set(fields) - set(MERCHANT_SETTINGS_FIELDS))
    if unknown:
        raise TypeError(f"not merchant settings: {', '.join(unknown)}")
    merchant_settings = MerchantSettings(
        company=company, **{**merchant_settings_defaults(sandbox=company.is_sandbox), **fields}
    )
    # The field checks give the message; the database keeps the check constraints (no query spent on them here).
    merchant_settings.full_clean(exclude=["company"], validate_unique=False, validate_constraints=False)
    merchant_settings.save(force_insert=True)
    return merchant_settings


def api_key_create(
    *, company: Company, name: str = "", rollout_allowed: bool = False, actions: Sequence[str] | None = None
) -> IssuedApiKey:
    """A new key; `actions` scopes it down to those actions (an empty set: nothing); None: no set of its own, every
    action of the live API-key group."""
    prefix = secrets.token_hex(API_KEY_PREFIX_BYTES)
    start = SANDBOX_KEY_START if company.is_sandbox else LIVE_KEY_START
    raw_key = f"{start}{prefix}_{secrets.token_urlsafe(API_KEY_SECRET_BYTES)}"
    api_key = ApiKey(
        company=company,
        name=name,
        prefix=prefix,
        key_hash=hash_api_key(raw_key),
        rollout_allowed=rollout_allowed,
        actions=None if actions is None else [action for action in ALL_ACTIONS if action in set(actions)],
    )
    api_key.full_clean(validate_unique=False, validate_constraints=False)
    api_key.save()
    return IssuedApiKey(api_key=api_key, raw_key=raw_key)


@transaction.atomic
def api_key_reissue(*, company: Company, name: str, rollout_allowed: bool = False) -> IssuedApiKey:
    """Revoke the company's live keys of that name and issue a fresh one (raw keys are never stored,
    so a rerun of an idempotent command can only hand out a new key)."""
    api_keys_revoke(api_keys=ApiKey.objects.filter(company=company, name=name))
    return api_key_create(company=company, name=name, rollout_allowed=rollout_allowed)


def api_key_revoke(*, api_key: ApiKey) -> ApiKey:
    if api_key.revoked_at is None:
        api_key.revoked_at = timezone.now()
        api_key.save(update_fields=["revoked_at"])
    return api_key


def api_keys_revoke(*, api_keys) -> int:
    """Revoke every not yet revoked key of the queryset; compare-and-set, so a rerun changes nothing."""
    return api_keys.filter(revoked_at__isnull=True).update(revoked_at=timezone.now())


def role_get_or_create_default(name: str) -> Role:
    role, _ = Role.objects.get_or_create(name=name, defaults={"actions": list(DEFAULT_ROLES.get(name, ()))})
    return role


def role_by_name(name: str) -> Role:
    """An existing role, or one of the default roles (created on first use); any other name is an error,
    never a silently empty role."""
    role = Role.objects.filter(name=name).first()
    if role is not None:
        return role
    if name not in DEFAULT_ROLES:
        known = sorted(set(DEFAULT_ROLES) | set(Role.objects.values_list("name", flat=True)))
        raise ValidationError(f"unknown role {name!r}; known roles: {', '.join(known)}")
    return role_get_or_create_default(name)


@transaction.atomic
def user_create(*, email: str, password: str, company: Company, role_name: str = "admin") -> User:
    """A new user with a membership of `company`; an existing user (same email) keeps their password and
    gets or changes their membership of `company`."""
    email = email.strip().lower()
    validate_email(email)
    role = role_by_name(role_name)
    user = User.objects.filter(email=email).first()
    if user is None:
        password_validation.validate_password(password, User(email=email))
        user = User.objects.create_user(email=email, password=password)
    Membership.objects.update_or_create(user=user, company=company, defaults={"role": role})
    return user


def company_set_rollout(*, company: Company, staged: bool) -> Company:
    company.staged_rollout = staged
    company.save(update_fields=["staged_rollout"])
    return company


def company_get_or_create(*, uuid: UUID, name: str, sandbox: bool = False) -> tuple[Company, bool]:
    """The company with that uuid, created with `name` when missing: for commands that may run twice. `sandbox`
    makes it (or keeps it) a sandbox company; an existing sandbox company is never made live here."""
    company = Company.objects.filter(uuid=uuid).first()
    if company is None:
        return company_create(name=name, sandbox=sandbox, uuid=uuid), True
    if sandbox and not company.is_sandbox:
        company.is_sandbox = True
        company.save(update_fields=["is_sandbox"])
    return company, False


def user_set_password(*, user: User, password: str) -> User:
    user.set_password(password)
    user.save(update_fields=["password"])
    return user


# JWT claim tying a token to the password it was issued under: a password change, by any path (admin form,
# create_user, a shell), makes every earlier refresh and access token invalid. Keyed, so the token does not carry
# something anyone could test password hashes against.
PASSWORD_CLAIM = "pwd"  # noqa: S105 - a claim name, not a password


class RefreshRefused(Exception):
    """A refresh token that must not mint tokens any more; the message says why (for the 401)."""


def password_fingerprint(user: User) -> str:
    return salted_hmac("jwt-password", user.password).hexdigest()[:32]


def token_matches_password(token, user: User) -> bool:  # a token or its payload
    return constant_time_compare(token.get(PASSWORD_CLAIM, ""), password_fingerprint(user))


# A login starts a session: every refresh token rotated from it carries the session's family id and start, so a
# reused token revokes the whole family (N12: a thief who refreshed first loses the session too) and no session is
# refreshed past JWT_SESSION_MAX_SECONDS from its login.
FAMILY_CLAIM = "fam"
SESSION_START_CLAIM = "auth_time"


def refresh_token_issue(*, user: User, family: str | None = None, session_start: int | None = None) -> RefreshToken:
    """A refresh token recorded as outstanding (so it can be revoked), its access token carrying the same claims.
    Without `family`, a new session (a login); a rotation passes its token's family and start on."""
    refresh = RefreshToken.for_user(user)
    refresh[PASSWORD_CLAIM] = password_fingerprint(user)
    refresh[FAMILY_CLAIM] = family or uuid4().hex
    refresh[SESSION_START_CLAIM] = session_start if session_start is not None else refresh["iat"]
    refresh["exp"] = min(refresh["exp"], refresh[SESSION_START_CLAIM] + settings.JWT_SESSION_MAX_SECONDS)
    # for_user recorded the token before these claims: the record must hold the token as issued (family lookups).
    OutstandingToken.objects.filter(jti=refresh["jti"]).update(
        token=str(refresh), expires_at=datetime.fromtimestamp(refresh["exp"], tz=UTC)
    )
    return refresh


def _family(payload: dict) -> str:
    return payload.get(FAMILY_CLAIM) or payload["jti"]  # a token from before families is a family of its own


def refresh_family_revoke(*, user_id: int, family: str) -> int:
    """Blacklists every unexpired refresh token of the user's session `family`; returns how many."""
    live = OutstandingToken.objects.filter(
        user_id=user_id, expires_at__gt=timezone.now(), blacklistedtoken__isnull=True
    )
    members = []
    for outstanding in live:
        try:
            payload = token_backend.decode(outstanding.token, verify=True)
        except TokenBackendError:
            continue
        if _family(payload) == family:
            members.append(BlacklistedToken(token=outstanding))
    return len(BlacklistedToken.objects.bulk_create(members, ignore_conflicts=True))


def _refused_for_reuse(payload: dict) -> RefreshRefused:
    """A rotated refresh token presented again: someone else holds its family; the whole session ends."""
    refresh_family_revoke(user_id=payload.get("user_id"), family=_family(payload))
    return RefreshRefused("This refresh token was already used; its session is revoked. Sign in again.")


def _refresh_payload(raw_token: str) -> dict:
    """The claims of a refresh token whose signature and expiry hold (blacklisted or not)."""
    try:
        payload = token_backend.decode(raw_token, verify=True)
    except TokenBackendError:
        raise RefreshRefused("Invalid or expired refresh token.") from None
    if payload.get("token_type") != "refresh" or "jti" not in payload:
        raise RefreshRefused("Invalid or expired refresh token.")
    return payload


def refresh_token_rotate(*, raw_token: str) -> RefreshToken:
    """CONTRACT 3 refresh with rotation (M7, N12): the presented token is blacklisted and a new one of the same
    session issued, once; presenting it again revokes the session. The user must still be active, a member of a
    company, on the password the token was issued under, and within the session's absolute lifetime."""
    payload = _refresh_payload(raw_token)
    if BlacklistedToken.objects.filter(token__jti=payload["jti"]).exists():
        raise _refused_for_reuse(payload)
    user = User.objects.filter(pk=payload.get("user_id"), is_active=True).first()
    if user is None or not user.memberships.exists():
        raise RefreshRefused("This user may no longer sign in.")
    if not token_matches_password(payload, user):
        raise RefreshRefused("The password has changed since this token was issued; sign in again.")
    session_start = payload.get(SESSION_START_CLAIM, payload.get("iat", 0))
    if time.time() >= session_start + settings.JWT_SESSION_MAX_SECONDS:
        raise RefreshRefused("This session has reached its maximum lifetime; sign in again.")
    with transaction.atomic():
        # The outstanding row is locked, so of two refreshes racing with one token exactly one rotates it.
        outstanding = OutstandingToken.objects.select_for_update().filter(jti=payload["jti"]).first()
        if outstanding is None:
            raise RefreshRefused("Invalid or expired refresh token.")
        try:
            with transaction.atomic():
                BlacklistedToken.objects.create(token=outstanding)
        except IntegrityError:
            raise RefreshRefused("Invalid or expired refresh token.") from None
        return refresh_token_issue(user=user, family=_family(payload), session_start=session_start)


def user_refresh_tokens_revoke(*, user: User) -> int:
    """Blacklists every unexpired refresh token of the user; returns how many were newly revoked."""
    live = OutstandingToken.objects.filter(user=user, expires_at__gt=timezone.now(), blacklistedtoken__isnull=True)
    return len(BlacklistedToken.objects.bulk_create([BlacklistedToken(token=t) for t in live], ignore_conflicts=True))
