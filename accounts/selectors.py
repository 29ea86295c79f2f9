"""Reads for the security model: API keys by prefix, memberships, the live action group."""

from __future__ import annotations

import hmac
import time

from accounts.actions import LIVE_API_KEY_GROUP
from accounts.models import ActionGroup, ApiKey, Membership

_GROUP_CACHE_SECONDS = 5.0
_group_cache: dict[str, tuple[float, frozenset[str] | None]] = {}


def api_key_matching(prefix: str, key_hash: str) -> ApiKey | None:
    """The key with this prefix and hash. Prefixes are unique per company only (UNIQUE (prefix, company_id), CONTRACT
    8), so the hash is checked against every key holding the prefix; two matches (never issued) are refused."""
    candidates = ApiKey.objects.select_related("company").filter(prefix=prefix)
    matches = [key for key in candidates if hmac.compare_digest(key.key_hash, key_hash)]
    return matches[0] if len(matches) == 1 else None


def membership_for(*, user_id: int, company_uuid) -> Membership | None:
    return (
        Membership.objects.select_related("company", "role").filter(user_id=user_id, company__uuid=company_uuid).first()
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
