"""One action run by several threads at the same moment, as concurrent requests or operator runs arrive."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

from django.db import connections

T = TypeVar("T")


def at_once(action: Callable[[], T], count: int) -> list[T]:
    """Starts `count` threads released together by a barrier, each calling `action`; returns what they returned
    (in finishing order). Each thread closes its own database connections; an exception in one is raised here."""
    barrier = threading.Barrier(count)
    results: list[T] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            barrier.wait()
            results.append(action())
        except BaseException as exc:
            errors.append(exc)
        finally:
            connections.close_all()  # every alias this thread opened, not only the default

    threads = [threading.Thread(target=run) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    return results
