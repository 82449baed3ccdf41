"""Run the suite on every core, with the clock- and thread-sensitive tests kept apart.

`python3 -m pytest` runs the tests on two pytest-xdist workers per core (`-n auto` in
pyproject.toml, `pytest_xdist_auto_num_workers` below).  Most tests only check what an engine or
a tool answers, and share the cores well.  A test marked `serial` measures something that a
loaded machine changes: a clock that must not run out, threads that must report within a time, a
search cut by `movetime`.  Such a test runs in a second phase, after every other test has
finished:

- `@pytest.mark.serial` (threads, or several busy processes at once): alone on the machine, as
  a plain `pytest -n 0` run would see it;
- `@pytest.mark.serial(cores=1)` (one searching thread at a time: a single-threaded engine, a
  game whose sides think in turn): on a core of its own, so on two cores two such tests run side
  by side, and never beside any other test.

Who may run beside whom is enforced by core tokens, one lock file a core, taken around each test
(`pytest_runtest_protocol`): a parallel-phase test shares every token, a `serial(cores=1)` test
holds one token alone, a `serial` test holds every token alone.  The scheduler only decides the
order: the parallel tests first on every worker; then the one-core tests spread over one worker
a core; then the whole-machine tests on one worker.

How the controller learns which tests are serial: it does not collect tests itself (xdist's
workers do), so each worker writes the node ids of its serial tests to a folder that the
controller made and named in an environment variable before the workers started; the scheduler
reads one worker's list when it first hands out tests.  Without xdist (`-n 0`, `-p no:xdist`)
every test runs one after another and the marker changes nothing.

This module is a pytest plugin: tests/conftest.py takes its hooks, and `-p serial_phase` loads it
elsewhere (tests/test_serial_phase.py runs a small suite with it).
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import json
import os
import shutil
import tempfile
import time
from collections.abc import Generator, Sequence
from pathlib import Path
from typing import Any

import pytest
from xdist.scheduler import LoadScheduling
from xdist.workermanage import WorkerController

SERIAL_MARK = "serial"
SLOW_MARK = "slow"
# The kind the workers' lists give a parallel-phase test marked `slow`: it is dealt out first.
SLOW_KIND = "slow"
# Set by the controller in pytest_configure; the workers it starts inherit it.
LIST_FOLDER_VARIABLE = "KESTREL_SERIAL_TEST_LISTS"


def is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def usable_cores() -> int:
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def scheduling_kind(item: pytest.Item) -> str | None:
    """The serial kind of a serial test, SLOW_KIND for another test marked `slow`, None otherwise."""
    kind = serial_kind(item)
    if kind is None and item.get_closest_marker(SLOW_MARK) is not None:
        return SLOW_KIND
    return kind


def serial_kind(item: pytest.Item) -> str | None:
    """"machine" for a test that must run alone, "core" for one that needs a core of its own,
    None for a parallel-phase test."""
    mark = item.get_closest_marker(SERIAL_MARK)
    if mark is None:
        return None
    return "core" if mark.kwargs.get("cores") == 1 else "machine"


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
    """A worker writes the node ids of its serial and slow tests for the controller (atomically:
    a half-written list is never read)."""
    folder = os.environ.get(LIST_FOLDER_VARIABLE)
    if not is_worker(config) or folder is None:
        return
    worker: str = config.workerinput["workerid"]  # type: ignore[attr-defined]
    kinds = {item.nodeid: kind for item in items if (kind := scheduling_kind(item)) is not None}
    partial = Path(folder) / f"{worker}.json.partial"
    partial.write_text(json.dumps(kinds))
    partial.replace(Path(folder) / f"{worker}.json")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, None, None]:
    """A worker of a parallel run holds the test's core tokens from its setup to its teardown."""
    folder = os.environ.get(LIST_FOLDER_VARIABLE)
    if folder is None or not is_worker(item.config):
        yield
        return
    with core_tokens(Path(folder), serial_kind(item)):
        yield


# How often a one-core test looks for a free core while both are taken.
TOKEN_POLL_SECONDS = 0.02


@contextlib.contextmanager
def core_tokens(folder: Path, kind: str | None) -> Generator[None, None, None]:
    """Hold the core tokens a test of this kind needs (see the module's docstring).

    Whoever blocks takes the tokens in one order, and a one-core test never blocks while it holds
    one (it tries each token in turn, then sleeps a moment), so no two tests wait for each other."""
    paths = [folder / f"core-{index}.lock" for index in range(usable_cores())]
    held: list[io.BufferedWriter] = []
    try:
        if kind == "core":
            held.append(_one_free_token(paths))
        else:
            operation = fcntl.LOCK_SH if kind is None else fcntl.LOCK_EX
            for path in paths:
                token = path.open("ab")
                held.append(token)
                fcntl.flock(token, operation)
        yield
    finally:
        for token in held:
            token.close()      # closing the file releases its lock


def _one_free_token(paths: Sequence[Path]) -> io.BufferedWriter:
    while True:
        for path in paths:
            token = path.open("ab")
            try:
                fcntl.flock(token, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                token.close()
            else:
                return token
        time.sleep(TOKEN_POLL_SECONDS)


# Workers per core for `-n auto`.  Many tests wait more than they compute (an engine that must time
# out, a Dask worker that must be missed, a browser page that must update): one worker per core left
# a core idle at those waits.  On 2 cores, 4 workers ran the parallel phase in 182 s instead of 232 s
# (`pytest -m "not serial" -n 4` against `-n 2`, same clone, one after the other).
WORKERS_PER_CORE = 2


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: two workers per core this process may use (the serial phase still runs alone)."""
    return WORKERS_PER_CORE * usable_cores()


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> LoadScheduling | None:
    """The `load` distribution (`-n N`'s default) with the serial tests last and alone."""
    return SerialLastScheduling(config, log) if config.getvalue("dist") == "load" else None


def read_test_kinds() -> dict[str, str]:
    """The serial and slow node ids one worker listed, each with its kind (every worker collects
    the same tests)."""
    folder = os.environ.get(LIST_FOLDER_VARIABLE)
    if folder is None:
        return {}
    lists = sorted(Path(folder).glob("*.json"))
    if not lists:
        raise RuntimeError(f"no worker listed its serial tests in {folder}")
    listed: dict[str, str] = json.loads(lists[0].read_text())
    return listed


class SerialLastScheduling(LoadScheduling):
    """xdist's load scheduling, holding the serial tests back until every other test has been
    handed out, then sending the one-core tests to one worker a core and the whole-machine tests
    after them to one of those workers.  (The core tokens keep each test from running beside the
    wrong ones; this class puts the tests in the order that lets the one-core tests pair up.)

    A worker runs the last test it was sent only once it is sent another or told to shut down
    (it must know the next test to tear fixtures down).  So when only serial tests are left, the
    workers beyond one a core are shut down and finish their queues; when those are done, the
    ones left are sent the serial tests and shut down after them."""

    def __init__(self, config: pytest.Config, log: Any = None) -> None:
        super().__init__(config, log)
        self._serial: dict[int, str] | None = None
        self._slow: set[int] = set()
        self._dealt: set[WorkerController] = set()
        self._serial_nodes: list[WorkerController] | None = None

    def _serial_indices(self) -> dict[int, str]:
        if self._serial is None:
            assert self.collection is not None
            kinds = read_test_kinds()
            self._serial = {index: kinds[nodeid] for index, nodeid in enumerate(self.collection)
                            if kinds.get(nodeid) in ("core", "machine")}
            self._slow = {index for index, nodeid in enumerate(self.collection) if kinds.get(nodeid) == SLOW_KIND}
        return self._serial

    def _parallel_pending(self) -> list[int]:
        """The parallel tests not yet sent, the slow ones first."""
        serial = self._serial_indices()
        parallel = [index for index in self.pending if index not in serial]
        return [index for index in parallel if index in self._slow] + \
            [index for index in parallel if index not in self._slow]

    def check_schedule(self, node: WorkerController, duration: float = 0) -> None:
        left = len(self._parallel_pending())
        if left:
            self._top_up(node, duration, left)
        elif self.pending:
            self._start_serial_phase()
        elif not node.shutting_down:
            node.shutdown()

    def _top_up(self, node: WorkerController, duration: float, left: int) -> None:
        """xdist's refill rule, counting only the `left` parallel tests not yet sent.  Its own counts the serial
        tests too, which are never sent in this phase, so near its end each worker was kept up to five
        tests deep, and the last worker ran its queue alone (a run of Dask tests, 40 s, while the
        other three idled)."""
        if node.shutting_down:
            return
        workers = len(self.node2pending)
        most_queued = max(2, left // workers // 2)
        queued = self.node2pending[node]
        if len(queued) >= max(2, left // workers // 4):
            return
        if duration >= 0.1 and len(queued) >= 2:
            return                  # a worker in a long test keeps its queue a while longer
        self._send_tests(node, most_queued - len(queued))

    def _send_tests(self, node: WorkerController, num: int) -> None:
        """Send `num` parallel tests.  The first batch of each worker holds its even share of the
        slow tests, at its head: a long test started last keeps one worker busy while the others
        idle (the Dask tests and the UCI fuzz sit late in the collection)."""
        pending = self._parallel_pending()
        slow = [index for index in pending if index in self._slow]
        if node not in self._dealt:
            undealt = sum(1 for other in self.nodes if other not in self._dealt)
            share = min(num, -(-len(slow) // max(1, undealt)))
            self._dealt.add(node)
            tests = slow[:share] + pending[len(slow):][:num - share]
        else:
            tests = pending[:num]
        if tests:
            for index in tests:
                self.pending.remove(index)
            self.node2pending[node].extend(tests)
            node.send_runtest_some(tests)

    def schedule(self) -> None:
        super().schedule()
        if self.collection and self.pending and not self._parallel_pending():
            self._start_serial_phase()

    def _start_serial_phase(self) -> None:
        """Keep one worker a core and shut the others down; once those have finished, send the
        kept ones the serial tests: the one-core tests in turn, the whole-machine tests last to
        the first kept worker."""
        if self._serial_nodes is None:
            alive = [node for node in self.nodes if not node.shutting_down]
            self._serial_nodes = alive[:max(1, min(usable_cores(), len(alive)))]
        kept = self._serial_nodes
        for node in self.nodes:
            if node not in kept and not node.shutting_down:
                node.shutdown()
        if any(pending for node, pending in self.node2pending.items() if node not in kept):
            return
        kinds = self._serial_indices()
        queues: list[list[int]] = [[] for _ in kept]
        one_core = [index for index in self.pending if kinds[index] == "core"]
        for turn, index in enumerate(one_core):
            queues[turn % len(kept)].append(index)
        queues[0].extend(index for index in self.pending if kinds[index] == "machine")
        self.pending.clear()
        for node, tests in zip(kept, queues, strict=True):
            if tests:
                self.node2pending[node].extend(tests)
                node.send_runtest_some(tests)
            node.shutdown()


_folder_key = pytest.StashKey[str]()
