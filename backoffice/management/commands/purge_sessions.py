"""python manage.py purge_sessions: Django's `clearsessions` (expired admin sessions) as a scheduled command, so each
run that ends well is recorded and /metrics says when it stops running (vault-clearsessions.timer)."""

from __future__ import annotations

from django.contrib.sessions.management.commands.clearsessions import Command as ClearSessions

from vault.commands import ScheduledCommand


class Command(ScheduledCommand, ClearSessions):
    help = "Delete expired admin sessions (Django's clearsessions), recorded for /metrics."
