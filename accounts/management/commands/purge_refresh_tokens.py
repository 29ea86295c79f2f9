"""python manage.py purge_refresh_tokens: simplejwt's `flushexpiredtokens` (refresh-token records past their expiry)
as a scheduled command, so each run that ends well is recorded and /metrics says when it stops running
(vault-flushexpiredtokens.timer)."""

from __future__ import annotations

from rest_framework_simplejwt.token_blacklist.management.commands.flushexpiredtokens import Command as Flush

from vault.commands import ScheduledCommand


class Command(ScheduledCommand, Flush):
    help = "Delete refresh-token records past their expiry (simplejwt's flushexpiredtokens), recorded for /metrics."
