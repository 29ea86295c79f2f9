"""Fixed-window request counters shared by every worker and machine: the API throttles (accounts/throttles.py)
and the login's per-address rate (accounts/login_throttle.py).

One round trip per request for all of its counters, whatever the store: with `CACHE_URL` (Redis) a pipeline of
INCR + EXPIRE per counter; otherwise one upsert into the database's UNLOGGED `accounts_ratewindow` table, which
counts exactly under concurrency (Django's database cache would read then write each counter, several
statements apiece and lossy under parallel requests). A fixed window lets a client burst up to twice its limit
across a window boundary; the limits are set with that in mind."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from datetime import UTC, datetime

from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache
from django.db import connection

from accounts.models import RateWindow


@dataclass(frozen=True)
class Limit:
    """At most `requests` per `seconds` for the caller named by `name` (a prefix such as `api-key:<prefix>`)."""

    name: str
    requests: int
    seconds: int

    def window(self, now: float) -> tuple[str, float]:
        """This window's counter key and the moment it ends."""
        index = int(now // self.seconds)
        return f"rate:{self.name}:{self.seconds}:{index}", (index + 1) * self.seconds


def _hits_in_redis(cache: RedisCache, keys: list[str], ends: list[float], now: float) -> list[int]:
    client = cache._cache.get_client(write=True)  # the redis client itself: one pipeline for every counter
    pipe = client.pipeline(transaction=False)
    for key, end in zip(keys, ends, strict=True):
        made = cache.make_and_validate_key(key)
        pipe.incr(made)
        pipe.expire(made, math.ceil(end - now) + 1)  # relative: a skew between our clock and redis's cannot matter
    return [int(value) for value in pipe.execute()[::2]]


def _hits_in_database(keys: list[str], ends: list[float]) -> list[int]:
    table = connection.ops.quote_name(RateWindow._meta.db_table)
    values = ", ".join(["(%s, 1, %s)"] * len(keys))
    params: list[object] = []
    for key, end in zip(keys, ends, strict=True):
        params += [key, datetime.fromtimestamp(end, tz=UTC)]
    sql = (
        f"INSERT INTO {table} (key, hits, expires_at) VALUES {values} "  # noqa: S608 - the model's table
        f"ON CONFLICT (key) DO UPDATE SET hits = {table}.hits + 1 RETURNING key, hits"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        counted = dict(cursor.fetchall())
    if 1 in counted.values():
        # A new window began for one of these callers: the ended windows are dropped, about once a window each.
        RateWindow.objects.filter(expires_at__lt=datetime.fromtimestamp(time.time(), tz=UTC)).delete()
    return [counted[key] for key in keys]


def rate_windows_hit(limits: list[Limit]) -> int | None:
    """Counts one request against every limit. None: within all of them; otherwise the seconds until the
    exceeded window(s) end (Retry-After)."""
    now = time.time()
    windows = [limit.window(now) for limit in limits]
    keys, ends = [key for key, _ in windows], [end for _, end in windows]
    cache = caches["default"]
    hits = _hits_in_redis(cache, keys, ends, now) if isinstance(cache, RedisCache) else _hits_in_database(keys, ends)
    over = [end for limit, end, count in zip(limits, ends, hits, strict=True) if count > limit.requests]
    return max(1, math.ceil(max(over) - now)) if over else None
