"""Waking the webhook worker. The outbox (events were written) and the delivery loop (a retry falls due, or more
is due than one worker sends) say that deliveries are due; events.tasks, whose task runs the delivery loop,
answers by queueing that task (EventsConfig.ready connects it). A signal rather than an import: the loop cannot
import the task that runs it without a circle."""

from __future__ import annotations

from datetime import datetime

from django.dispatch import Signal

# Sent with `at`: when the deliveries fall due (None: now).
deliveries_due = Signal()


def deliveries_due_wake(*, at: datetime | None = None) -> None:
    deliveries_due.send(sender=None, at=at)
