"""Admin for the lifecycle records (batches, settlements, imported files) and operator actions on
transactions (release holds, reject, restore, acknowledge)."""
from __future__ import annotations

# Admin actions the transaction admin offers; transactions/admin.py includes them.
TRANSACTION_ACTIONS: list = []
