"""The one table of the plumbing: when each scheduled ops command last ended well (GET /metrics reads it)."""

from __future__ import annotations

from django.db import models


class CommandRun(models.Model):
    """One row per scheduled command, written as a run of it ends without an error: a run with nothing to do
    counts (a holiday's originate), so the row says the command ran, not that it moved money."""

    command = models.CharField(max_length=64, unique=True)
    succeeded_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.command} {self.succeeded_at:%Y-%m-%d %H:%M}"
