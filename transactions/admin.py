"""Read-only transaction admin for support."""
from __future__ import annotations

from transactions import lifecycle_admin  # noqa: F401  (registers the lifecycle admin pages)
from transactions.lifecycle_admin import TRANSACTION_ACTIONS  # noqa: F401
