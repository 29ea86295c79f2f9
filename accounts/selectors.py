"""Reads for the security model: API keys by prefix, memberships, the live action group."""

from __future__ import annotations

import copy
import hmac
import time
from dataclasses import dataclass
from datetime import date, datetime
from datetime import time as time_of_day
from decimal import Decimal
from typing import Any
from uuid import UUID

from django.db.models import Model
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from accounts.actions import LIVE_API_KEY_GROUP
from accounts.models import ActionGroup, ApiKey, Company, Membership, MerchantSettings
from vault.db import loaded_instance

_GROUP_CACHE_SECONDS = 5.0
_group_cache: dict[str, tuple[float, frozenset[str] | None]] = {}

# An API key as authentication last read it (with its company and the company's settings), per process, by the
# hash of the whole key: every request with a key read it again before (a round trip; the bare-insert floor's one
# other than its INSERT).
# Revocation, a change of scope or rollout flag, a company's suspension or its settings reach every process within
# this many seconds (CONTRACT 3); a save in this process clears its own copy at once.
API_KEY_CACHE_SECONDS = 2.0
_API_KEY_CACHE_MAX = 10_000  # keys in use at once per process; past it the cache starts over
_IMMUTABLE = (str, int, float, bool, type(None), datetime, date, time_of_day, Decimal, UUID)  # shared, never copied


@dataclass
class _KeySnapshot:
    read_at: float
    key: dict[str, Any]
    company: dict[str, Any]
    settings: dict[str, Any]


_key_cache: dict[str, _KeySnapshot] = {}


def api_key_matching(prefix: str, key_hash: str) -> ApiKey | None:
    """The key with this prefix and hash. Prefixes are unique per company only (UNIQUE (prefix, company_id), CONTRACT
    8), so the hash is checked against every key holding the prefix; two matches (never issued) are refused."""
    candidates = ApiKey.objects.select_related("company__merchant_settings").filter(prefix=prefix)
    matches = [key for key in candidates if hmac.compare_digest(key.key_hash, key_hash)]
    return matches[0] if len(matches) == 1 else None


def _values(obj: Model) -> dict[str, Any]:
    return {field.attname: getattr(obj, field.attname) for field in obj._meta.concrete_fields}


def _instance(model: type[Model], values: dict[str, Any]) -> Model:
    """The model from a snapshot's values, with copies of its mutable ones (a list of actions): each request gets
    its own, so nothing one request does to it reaches another."""
    own = {name: value if isinstance(value, _IMMUTABLE) else copy.deepcopy(value) for name, value in values.items()}
    return loaded_instance(model, own)


def api_key_authenticated(prefix: str, key_hash: str) -> ApiKey | None:
    """`api_key_matching`, answered from this process's copy when it was read less than API_KEY_CACHE_SECONDS
    ago (revoked keys too: they stay refused). An unknown key is never remembered, so a new key works at once; nor
    is a sandbox company's."""
    now = time.monotonic()
    cached = _key_cache.get(key_hash)
    if cached is None or now - cached.read_at >= API_KEY_CACHE_SECONDS:
        api_key = api_key_matching(prefix, key_hash)
        if api_key is None:
            return None
        if api_key.company.is_sandbox:
            return api_key  # read every time: its clock moves by request (POST /sandbox/clock)
        if len(_key_cache) >= _API_KEY_CACHE_MAX:
            _key_cache.clear()
        company = api_key.company
        cached = _KeySnapshot(
            read_at=now, key=_values(api_key), company=_values(company), settings=_values(company.merchant_settings)
        )
        _key_cache[key_hash] = cached
    api_key = _instance(ApiKey, cached.key)
    company = api_key._state.fields_cache["company"] = _instance(Company, cached.company)
    company._state.fields_cache["merchant_settings"] = _instance(MerchantSettings, cached.settings)
    return api_key


def api_key_used(api_key: ApiKey) -> None:
    """This process's copy of the key learns the `last_used_at` authentication just wrote."""
    cached = _key_cache.get(api_key.key_hash)
    if cached is not None:
        cached.key["last_used_at"] = api_key.last_used_at


@receiver(post_save, sender=ApiKey, dispatch_uid="api_key_cache_clear_on_key_save")
@receiver(post_delete, sender=ApiKey, dispatch_uid="api_key_cache_clear_on_key_delete")
@receiver(post_save, sender=Company, dispatch_uid="api_key_cache_clear_on_company_save")
@receiver(post_delete, sender=Company, dispatch_uid="api_key_cache_clear_on_company_delete")
@receiver(post_save, sender=MerchantSettings, dispatch_uid="api_key_cache_clear_on_settings_save")
def _api_key_cache_clear_on_save(**kwargs) -> None:
    api_key_cache_clear()


def api_key_cache_clear() -> None:
    """Forget this process's copies (another process's expire within API_KEY_CACHE_SECONDS)."""
    _key_cache.clear()


def membership_for(*, user_id: int, company_uuid) -> Membership | None:
    return (
        Membership.objects.select_related("company__merchant_settings", "role")
        .filter(user_id=user_id, company__uuid=company_uuid)
        .first()
    )


def live_api_key_actions() -> frozenset[str] | None:
    """The live API-key action group; cached per process for a few seconds, since every request reads it.
    None when the row is missing: API keys then fail closed (CONTRACT 3), they are not allowed everything."""
    cached = _group_cache.get(LIVE_API_KEY_GROUP)
    now = time.monotonic()
    if cached and now - cached[0] < _GROUP_CACHE_SECONDS:
        return cached[1]
    group = ActionGroup.objects.filter(name=LIVE_API_KEY_GROUP).first()
    actions = frozenset(group.actions) if group else None
    _group_cache[LIVE_API_KEY_GROUP] = (now, actions)
    return actions


def clear_action_group_cache() -> None:
    _group_cache.clear()
