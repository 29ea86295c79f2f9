"""Work spread over a few threads, each with its own database connection: for a command whose units share no row
(settle's companies), so that while one thread waits on PostgreSQL another's Python runs; or over a few forked
processes, for such a command whose Python is most of its work (import_returns)."""

from __future__ import annotations

import gc
import multiprocessing
import multiprocessing.process
import multiprocessing.queues
import pickle
import queue
import threading
import traceback
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Generic, TypeVar

from django.db import DEFAULT_DB_ALIAS, DatabaseError, connection, connections

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


class LockLost(Exception):
    """The connection holding a run's lock is gone (the database restarted): another run may hold it now."""


class HeldLock:
    """What `serialized` yields: `check()` before a step that must not run twice at once (an upload to the bank)
    proves the lock is still held, or raises LockLost."""

    def __init__(self, holder=None) -> None:
        self.holder = holder

    def check(self) -> None:
        if self.holder is None:
            return
        try:
            with self.holder.cursor() as cursor:
                cursor.execute("SELECT 1")
        except DatabaseError as exc:
            raise LockLost(
                f"the database connection holding this run's lock was lost ({type(exc).__name__}): stopped, so that "
                "two runs never work at once; the next run goes on"
            ) from None


@contextmanager
def serialized(key: int) -> Iterator[HeldLock]:
    """One run at a time of what holds `key` (its threads commit on their own connections while it runs).
    PostgreSQL: a transaction-scoped advisory lock, held by a connection of its own that does nothing else (a
    session lock would not hold behind pgbouncer in transaction mode, which keeps a server connection only for an
    open transaction); inside a caller's transaction, by that transaction. SQLite serializes writers by itself."""
    if connection.vendor != "postgresql" or connection.in_atomic_block:
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_xact_lock(%s)", [key])
        yield HeldLock()
        return
    holder = connections.create_connection(DEFAULT_DB_ALIAS)
    try:
        holder.set_autocommit(False)
        with holder.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [key])
        yield HeldLock(holder)
    finally:
        holder.close()  # ends its transaction, and so the lock


class CompanyProcesses:
    """Work of companies that share no row, in `workers` forked processes where that helps (PostgreSQL, two or more
    workers, no caller's transaction open), so that its Python runs on as many cores instead of one GIL (a
    command whose work is mostly Python, as `import_returns`). Each company is owned by one process (`owner`), and
    each process does the work given to it in the order given, so a company's work runs in order and never on two
    processes at once, while a process that is done goes on to its next work without waiting for the others. Each
    process opens its own database connection; the work and its items must pickle. After a failure no process
    starts more work, and the first failure is raised here. Elsewhere the work runs here, when given. Use as a
    context manager: it waits for the processes on the way out."""

    def __init__(self, workers: int, *, ahead: int = 3) -> None:
        self.workers = max(1, workers)
        self.owners: dict[Hashable, int] = {}
        self.loads = [0] * self.workers  # how much work each process was given
        self.limit = ahead * self.workers  # pieces of work given and not yet done, at most
        self.given = 0
        self.outstanding: set[int] = set()
        self.results: dict[int, object] = {}
        self.processes: list[multiprocessing.process.BaseProcess] = []
        self.queues: list[multiprocessing.queues.Queue] = []
        if _spreads(workers):
            connections.close_all()  # a forked process opens its own connections, never one of its parent's
            context = multiprocessing.get_context("fork")
            self.done, self.stop = context.Queue(), context.Event()
            for _ in range(self.workers):  # all forked now, while no connection is open
                tasks = context.Queue()
                process = context.Process(target=_serve, args=(tasks, self.done, self.stop), daemon=True)
                process.start()
                self.queues.append(tasks)
                self.processes.append(process)

    def __enter__(self) -> CompanyProcesses:
        return self

    def __exit__(self, exc_type: object, *exc_info: object) -> None:
        if not self.processes:
            return
        if exc_type is not None:
            self.stop.set()  # what was given and not begun is not done
        for tasks in self.queues:
            tasks.put(None)
        for process in self.processes:
            process.join()

    def owner(self, key: Hashable, load: int) -> int:
        """The process that does `key`'s work (a company's): the first time, the one given the least work so far.
        `load` (how much work this is) counts toward its share."""
        index = self.owners.setdefault(key, min(range(self.workers), key=self.loads.__getitem__))
        self.loads[index] += load
        return index

    def give(self, index: int, work: Callable[[Item], Result], item: Item) -> int:
        """Gives `work(item)` to process `index`, after the work before it there (here: does it now); returns its
        number for `result`. Waits while `ahead` pieces of work a process are given and not done."""
        number, self.given = self.given, self.given + 1
        if not self.processes:
            self.results[number] = work(item)
            return number
        while len(self.outstanding) >= self.limit:
            self._collect()
        self.outstanding.add(number)
        self.queues[index].put((number, work, item))
        return number

    def result(self, number: int) -> object:
        while number in self.outstanding:
            self._collect()
        return self.results.pop(number)

    def wait(self) -> None:
        """Until all the work given is done (raising the first failure)."""
        while self.outstanding:
            self._collect()
        self.results.clear()

    def start(self, items: Sequence[Item], work: Callable[[Item], Result]) -> Callable[[], list[Result]]:
        """Gives `work(item)` for each item to the processes in turn; returns what waits for them all and gives
        their results in the items' order."""
        numbers = [self.give(index % self.workers, work, item) for index, item in enumerate(items)]
        return lambda: [self.result(number) for number in numbers]

    def _collect(self) -> None:
        try:
            number, value, error, remote_traceback = self.done.get(timeout=1)
        except queue.Empty:
            if ended := [process for process in self.processes if not process.is_alive()]:
                self.stop.set()
                raise RuntimeError(f"a worker process ended (exit code {ended[0].exitcode}) with work to do") from None
            return
        self.outstanding.discard(number)
        if error is not None:
            raise error from RemoteTraceback(remote_traceback)
        self.results[number] = value


class RemoteTraceback(Exception):
    """Where a failure raised in a worker process came from."""


def _serve(tasks: multiprocessing.queues.Queue, done: multiprocessing.queues.Queue, stop: Any) -> None:
    """A forked process: does the work it is given, in order, until told to end; after any process's failure it
    does no more. Its connections are closed after each piece of work (a process ends without closing them).

    Each piece of work runs with the cyclic garbage collector paused, and the cycles it made are collected once after
    it: a group of 10,000 returns holds some 10,000 loaded entries with their values and makes ~30,000 new rows'
    objects, and the collector, run every 700 allocations, walked them again and again (about 1.9 s of each
    process's 8.5 s of Python in a 100,000-return file). What the fork inherited is frozen: never garbage here."""
    gc.freeze()
    while (task := tasks.get()) is not None:
        number, work, item = task
        if stop.is_set():
            done.put((number, None, None, None))
            continue
        gc.disable()
        try:
            done.put((number, work(item), None, None))
        except BaseException as error:  # handed to the parent, which raises it
            stop.set()
            done.put((number, None, _portable(error), traceback.format_exc()))
        finally:
            connections.close_all()
            gc.enable()
            gc.collect()


def _portable(error: BaseException) -> BaseException:
    """The error itself when it pickles (the parent raises what was raised here), else its text."""
    try:
        pickle.loads(pickle.dumps(error))  # noqa: S301 - bytes it just made
    except Exception:  # any failure to pickle
        return RuntimeError(f"{type(error).__name__}: {error}")
    return error
