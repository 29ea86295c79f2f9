"""vault.threads.CompanyProcesses on PostgreSQL: each company's work runs in the one process that owns it, in the
order given, while the other process goes on with its own; a failure in a process is raised in the command, which
then starts no more work; a process that dies is an error, not a hang."""

from __future__ import annotations

import gc
import os
import time
import weakref
from pathlib import Path

import pytest

from vault.threads import CompanyProcesses

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def _pid_of(item: str) -> tuple[int, str]:
    return os.getpid(), item


def _after(gate: Path) -> str:
    """Waits for `gate` to exist (at most 30 s): what a long piece of work holding its process looks like."""
    for _ in range(300):
        if gate.exists():
            return "released"
        time.sleep(0.1)
    return "never released"


def _fails_on(item: str) -> str:
    if item == "bad":
        raise ValueError("entry 7 names no company")
    return item


def _written(path: Path) -> None:
    path.write_text("done")


class _Node:
    pass


_left_behind: list[weakref.ref] = []


def _cycle_left(_item: str) -> bool:
    """Makes a reference cycle that only the cyclic collector can free; whether the collector ran meanwhile."""
    node = _Node()
    node.self = node
    _left_behind.append(weakref.ref(node))
    return gc.isenabled()


def _cycles_alive(_item: str) -> int:
    return sum(ref() is not None for ref in _left_behind)


def test_each_company_is_worked_by_one_process_in_the_order_given():
    with CompanyProcesses(2) as processes:
        owners = [processes.owner(key, load) for key, load in [("a", 10), ("b", 1), ("c", 1), ("a", 1), ("b", 5)]]
        assert owners == [0, 1, 1, 0, 1]  # a company new to the work goes to the process given the least so far
        numbers = [processes.give(index, _pid_of, f"{index}-{n}") for n, index in enumerate(owners)]
        results = [processes.result(number) for number in numbers]
    assert [item for _pid, item in results] == ["0-0", "1-1", "1-2", "0-3", "1-4"]
    pids = {index: {pid for pid, item in results if item.startswith(f"{index}-")} for index in (0, 1)}
    assert len(pids[0]) == len(pids[1]) == 1 and pids[0] != pids[1] and os.getpid() not in pids[0] | pids[1]


def test_a_process_goes_on_while_the_other_is_busy(tmp_path):
    gate = tmp_path / "gate"
    with CompanyProcesses(2) as processes:
        held = processes.give(0, _after, gate)
        quick = [processes.give(1, _pid_of, f"quick-{n}") for n in range(4)]
        # Process 1's work is done while process 0's is still held (a barrier between them would wait 30 s here,
        # then process 0's answer would be "never released").
        assert [processes.result(number)[1] for number in quick] == [f"quick-{n}" for n in range(4)]
        gate.write_text("open")
        assert processes.result(held) == "released"


def test_a_failure_in_a_process_is_raised_here_and_no_more_work_starts(tmp_path):
    later = tmp_path / "later"
    with pytest.raises(ValueError, match="entry 7 names no company"), CompanyProcesses(2) as processes:
        processes.give(0, _fails_on, "bad")
        processes.wait()
    with CompanyProcesses(2) as processes:
        failing = processes.give(0, _fails_on, "bad")
        with pytest.raises(ValueError, match="entry 7 names no company") as raised:
            processes.result(failing)
        assert "_fails_on" in str(raised.value.__cause__)  # where it was raised, in the process
        processes.give(0, _written, later)
        processes.give(1, _written, later)
        processes.wait()
    assert not later.exists()


def test_a_process_that_dies_is_an_error_not_a_wait():
    with pytest.raises(RuntimeError, match="worker process ended"), CompanyProcesses(2) as processes:
        processes.result(processes.give(1, os._exit, 3))


def test_work_runs_with_the_cyclic_collector_paused_and_its_cycles_are_freed_after_it():
    with CompanyProcesses(2) as processes:
        paused = [processes.result(processes.give(0, _cycle_left, str(n))) for n in range(3)]
        alive = processes.result(processes.give(0, _cycles_alive, "count"))
    # The collector walked a large group's objects every 700 allocations (a fifth of the import's Python); paused,
    # the garbage a piece of work makes is still freed once it ends, so a process's memory stays bounded.
    assert paused == [False, False, False]
    assert alive == 0
