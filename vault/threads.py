"""Work spread over a few threads, each with its own database connection: for a command whose units share no row
(settle's companies), so that while one thread waits on PostgreSQL another's Python runs; or over a few forked
processes, for such a command whose Python is most of its work (import_returns)."""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import os
import queue
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Generic, TypeVar

from django.db import DEFAULT_DB_ALIAS, connection, connections

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
    if len(items) < 2 or not _spreads(workers):
        return [work(item) for item in progress(items, desc=desc, unit="company")]
    return on_threads(items, work, workers=workers, progress=progress, desc=desc, unit="company")


def _spreads(workers: int) -> bool:
    """Whether work may leave this connection: PostgreSQL, two or more workers, and no caller's transaction open,
    whose rows other connections could not see."""
    return workers >= 2 and connection.vendor == "postgresql" and not connection.in_atomic_block


@contextmanager
def serialized(key: int) -> Iterator[None]:
    """One run at a time of what holds `key` (its threads commit on their own connections while it runs).
    PostgreSQL: a transaction-scoped advisory lock, held by a connection of its own that does nothing else (a
    session lock would not hold behind pgbouncer in transaction mode, which keeps a server connection only for an
    open transaction); inside a caller's transaction, by that transaction. SQLite serializes writers by itself."""
    if connection.vendor != "postgresql" or connection.in_atomic_block:
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_xact_lock(%s)", [key])
        yield
        return
    holder = connections.create_connection(DEFAULT_DB_ALIAS)
    try:
        holder.set_autocommit(False)
        with holder.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [key])
        yield
    finally:
        holder.close()  # ends its transaction, and so the lock


class CompanyProcesses:
    """Work of companies that share no row, in `workers` forked processes where that helps (PostgreSQL, two or more
    workers, no caller's transaction open), so that its Python runs on as many cores instead of one GIL (a
    command whose work is mostly Python, as `import_returns`). Each process opens its own database connection;
    the work and its items must pickle. Elsewhere the work runs here, one item after another. Use as a context
    manager: it waits for the processes on the way out."""

    def __init__(self, workers: int) -> None:
        self.pool: concurrent.futures.ProcessPoolExecutor | None = None
        if _spreads(workers):
            connections.close_all()  # a forked process opens its own connections, never one of its parent's
            context = multiprocessing.get_context("fork")
            self.pool = concurrent.futures.ProcessPoolExecutor(workers, mp_context=context)
            # Fork them all now, while no connection is open (the first task forks every process of a "fork"
            # pool): a process forked later would share the socket of a connection its parent opened since.
            self.pool.submit(os.getpid).result()

    def __enter__(self) -> CompanyProcesses:
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)

    def start(self, items: Sequence[Item], work: Callable[[Item], Result]) -> Callable[[], list[Result]]:
        """Starts `work(item)` for each item (here, at once, when there are no processes or one item); returns what
        waits for them all and gives their results in the items' order, raising the first failure."""
        if self.pool is None or len(items) < 2:
            results = [work(item) for item in items]
            return lambda: results
        futures = [self.pool.submit(_closing_after, work, item) for item in items]
        return lambda: [future.result() for future in futures]


def _closing_after(work: Callable[[Item], Result], item: Item) -> Result:
    """In a forked process: its connections are closed after each item (a process ends without closing them)."""
    try:
        return work(item)
    finally:
        connections.close_all()
