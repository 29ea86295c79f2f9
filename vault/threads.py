"""Work spread over a few threads, each with its own database connection: for a command whose units share no row
(settle's companies), so that while one thread waits on PostgreSQL another's Python runs."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Generic, TypeVar

from django.db import connection, connections

from vault.commands import Progress, no_progress

Item = TypeVar("Item")
Result = TypeVar("Result")


class _Pool(Generic[Item, Result]):
    """`work(item)` for each item; a free thread takes the next item. After a failure no item is started; those
    under way finish."""

    def __init__(self, items: Sequence[Item], work: Callable[[Item], Result]) -> None:
        self.work = work
        self.pending: queue.SimpleQueue[Item] = queue.SimpleQueue()
        for item in items:
            self.pending.put(item)
        # (True, result) or (False, error) per item; None when a thread ends.
        self.done: queue.SimpleQueue[tuple[bool, object] | None] = queue.SimpleQueue()
        self.stop = threading.Event()

    def thread_main(self) -> None:
        try:
            while not self.stop.is_set():
                try:
                    item = self.pending.get_nowait()
                except queue.Empty:
                    return
                try:
                    self.done.put((True, self.work(item)))
                except BaseException as exc:  # raised again in the caller's thread
                    self.stop.set()
                    self.done.put((False, exc))
                    return
        finally:
            connections.close_all()  # this thread's own connections
            self.done.put(None)

    def outcomes(self, threads: int) -> Iterator[tuple[bool, object]]:
        ended = 0
        while ended < threads:
            outcome = self.done.get()
            if outcome is None:
                ended += 1
            else:
                yield outcome


def on_threads(
    items: Sequence[Item],
    work: Callable[[Item], Result],
    *,
    workers: int,
    progress: Progress = no_progress,
    desc: str = "",
    unit: str = "item",
) -> list[Result]:
    """The results of `work(item)` for every item (in the order they finish), on up to `workers` threads. The first
    failure is raised once every thread has stopped."""
    pool: _Pool[Item, Result] = _Pool(items, work)
    threads = [
        threading.Thread(target=pool.thread_main, name=f"{desc or 'work'}-{n}") for n in range(min(workers, len(items)))
    ]
    for thread in threads:
        thread.start()
    results: list[Result] = []
    failures: list[BaseException] = []
    for succeeded, value in progress(pool.outcomes(len(threads)), total=len(items), desc=desc, unit=unit):
        if succeeded:
            results.append(value)  # type: ignore[arg-type]
        else:
            failures.append(value)  # type: ignore[arg-type]
    for thread in threads:
        thread.join()
    if failures:
        raise failures[0]
    return results


def per_company(
    items: Sequence[Item],
    work: Callable[[Item], Result],
    *,
    workers: int,
    progress: Progress = no_progress,
    desc: str = "",
) -> list[Result]:
    """`work(item)` for each company's item: on `workers` threads where that helps (PostgreSQL, two or more of each,
    and no caller's transaction open, whose rows the threads' own connections could not see), else one after
    another on this connection, in order."""
    if workers < 2 or len(items) < 2 or connection.vendor != "postgresql" or connection.in_atomic_block:
        return [work(item) for item in progress(items, desc=desc, unit="company")]
    return on_threads(items, work, workers=workers, progress=progress, desc=desc, unit="company")
