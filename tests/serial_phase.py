"""Run the suite on every core, with the clock- and thread-sensitive tests kept apart.

`python3 -m pytest` runs the tests on two pytest-xdist workers per core (`-n auto` in
pyproject.toml, `pytest_xdist_auto_num_workers` below).  Most tests only check what an engine or
a tool answers, and share the cores well.  A test marked `serial` measures something that a
loaded machine changes: a clock that must not run out, threads that must report within a time, a
search cut by `movetime`.  Such a test runs in a second phase, after every other test has
finished, alone on one worker while the others wait, so it sees the machine as a plain
`pytest -n 0` run would.

How the controller learns which tests are serial: it does not collect tests itself (xdist's
workers do), so each worker writes the node ids of its serial tests to a folder that the
controller made and named in an environment variable before the workers started; the scheduler
reads one worker's list when it first hands out tests.  Without xdist (`-n 0`, `-p no:xdist`)
every test runs one after another and the marker changes nothing.

This module is a pytest plugin: tests/conftest.py takes its hooks, and `-p serial_phase` loads it
elsewhere (tests/test_serial_phase.py runs a small suite with it).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from xdist.scheduler import LoadScheduling
from xdist.workermanage import WorkerController

SERIAL_MARK = "serial"
# Set by the controller in pytest_configure; the workers it starts inherit it.
LIST_FOLDER_VARIABLE = "KESTREL_SERIAL_TEST_LISTS"


def is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def pytest_configure(config: pytest.Config) -> None:
    """The controller of a parallel run makes the folder for the workers' lists."""
    if is_worker(config) or not config.getoption("numprocesses", None):
        return
    folder = tempfile.mkdtemp(prefix="kestrel-serial-")
    config.stash[_folder_key] = folder
    os.environ[LIST_FOLDER_VARIABLE] = folder


def pytest_unconfigure(config: pytest.Config) -> None:
    folder = config.stash.get(_folder_key, None)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)
        os.environ.pop(LIST_FOLDER_VARIABLE, None)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: Sequence[pytest.Item]) -> None:
    """A worker writes the node ids of its serial tests for the controller (atomically: a
    half-written list is never read)."""
    folder = os.environ.get(LIST_FOLDER_VARIABLE)
    if not is_worker(config) or folder is None:
        return
    worker: str = config.workerinput["workerid"]  # type: ignore[attr-defined]
    serial = [item.nodeid for item in items if item.get_closest_marker(SERIAL_MARK) is not None]
    partial = Path(folder) / f"{worker}.json.partial"
    partial.write_text(json.dumps(serial))
    partial.replace(Path(folder) / f"{worker}.json")


# Workers per core for `-n auto`.  Many tests wait more than they compute (an engine that must time
# out, a Dask worker that must be missed, a browser page that must update): one worker per core left
# a core idle at those waits.  On 2 cores, 4 workers ran the parallel phase in 182 s instead of 232 s
# (`pytest -m "not serial" -n 4` against `-n 2`, same clone, one after the other).
WORKERS_PER_CORE = 2


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: two workers per core this process may use (the serial phase still runs alone)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return WORKERS_PER_CORE * cores


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> LoadScheduling | None:
    """The `load` distribution (`-n N`'s default) with the serial tests last and alone."""
    return SerialLastScheduling(config, log) if config.getvalue("dist") == "load" else None


def read_serial_tests() -> set[str]:
    """The serial node ids one worker listed (every worker collects the same tests)."""
    folder = os.environ.get(LIST_FOLDER_VARIABLE)
    if folder is None:
        return set()
    lists = sorted(Path(folder).glob("*.json"))
    if not lists:
        raise RuntimeError(f"no worker listed its serial tests in {folder}")
    return set(json.loads(lists[0].read_text()))


class SerialLastScheduling(LoadScheduling):
    """xdist's load scheduling, holding the serial tests back until every other test has ended,
    then sending them all to one worker.

    A worker runs the last test it was sent only once it is sent another or told to shut down
    (it must know the next test to tear fixtures down).  So when only serial tests are left, every
    worker but one is shut down and finishes its queue; when those are done, the one left is sent
    the serial tests (it first runs its own last test, alone) and shut down after them."""

    def __init__(self, config: pytest.Config, log: Any = None) -> None:
        super().__init__(config, log)
        self._serial: set[int] | None = None
        self._serial_node: WorkerController | None = None

    def _serial_indices(self) -> set[int]:
        if self._serial is None:
            assert self.collection is not None
            names = read_serial_tests()
            self._serial = {index for index, nodeid in enumerate(self.collection) if nodeid in names}
        return self._serial

    def _parallel_pending(self) -> list[int]:
        serial = self._serial_indices()
        return [index for index in self.pending if index not in serial]

    def _send_tests(self, node: WorkerController, num: int) -> None:
        tests = self._parallel_pending()[:num]
        if tests:
            for index in tests:
                self.pending.remove(index)
            self.node2pending[node].extend(tests)
            node.send_runtest_some(tests)

    def schedule(self) -> None:
        super().schedule()
        if self.collection and self.pending and not self._parallel_pending():
            self._start_serial_phase()

    def check_schedule(self, node: WorkerController, duration: float = 0) -> None:
        if self._parallel_pending():
            super().check_schedule(node, duration)
        elif self.pending:
            self._start_serial_phase()
        elif not node.shutting_down:
            node.shutdown()

    def _start_serial_phase(self) -> None:
        """Shut every worker but one down; once they have finished, send it the serial tests."""
        if self._serial_node is None:
            self._serial_node = next(node for node in self.nodes if not node.shutting_down)
        chosen = self._serial_node
        for node in self.nodes:
            if node is not chosen and not node.shutting_down:
                node.shutdown()
        if any(pending for node, pending in self.node2pending.items() if node is not chosen):
            return
        tests = list(self.pending)
        self.pending.clear()
        self.node2pending[chosen].extend(tests)
        chosen.send_runtest_some(tests)
        chosen.shutdown()


_folder_key = pytest.StashKey[str]()
