"""The suite's parallel run keeps the serial tests apart (tests/serial_phase.py): a small suite run
with two workers shows that every serial test starts after every other test has ended, that a
whole-machine serial test runs alone, that the one-core serial tests run at most one a core and
side by side where there are two cores, and that the others did run side by side."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent
# One test's run as the suite logs it: kind, start, end, worker.
Run = tuple[str, float, float, str]

SUITE = '''
import os
import time

import pytest


def record(kind):
    start = time.time()
    time.sleep(0.2)
    with open(os.environ["PHASE_LOG"], "a") as log:
        log.write(f"{kind} {start} {time.time()} {os.environ['PYTEST_XDIST_WORKER']}\\n")


@pytest.mark.parametrize("index", range(4))
def test_parallel(index):
    record("parallel")


@pytest.mark.serial
@pytest.mark.parametrize("index", range(2))
def test_serial(index):
    record("serial")


@pytest.mark.serial(cores=1)
@pytest.mark.parametrize("index", range(4))
def test_one_core(index):
    record("core")


@pytest.mark.parametrize("index", range(4))
def test_parallel_after(index):
    record("parallel")


@pytest.mark.slow
@pytest.mark.parametrize("index", range(2))
def test_slow_last_in_the_file(index):
    record("slow")
'''


def run_suite(tmp_path: Path, *options: str) -> list[Run]:
    (tmp_path / "test_suite.py").write_text(SUITE)
    markers = "serial: alone, after the others", "slow: dealt out first"
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n" + "".join(f"    {line}\n" for line in markers))
    log = tmp_path / "phases.log"
    env = {**os.environ, "PHASE_LOG": str(log),
           "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])}
    env.pop("KESTREL_SERIAL_TEST_LISTS", None)       # this run's controller makes its own
    result = subprocess.run([sys.executable, "-m", "pytest", "-p", "serial_phase", "-n", "2", "-q",
                             "-p", "no:cacheprovider", *options, str(tmp_path)], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    rows = [line.split() for line in log.read_text().splitlines()]
    return [(kind, float(start), float(end), worker) for kind, start, end, worker in rows]


def overlap(a: Run, b: Run) -> bool:
    return a[1] < b[2] and b[1] < a[2]


def most_at_once(runs: list[Run]) -> int:
    """The most of these runs under way at one moment (some run's start)."""
    return max(sum(b[1] <= a[1] < b[2] for b in runs) for a in runs)


def test_serial_tests_run_last_and_only_beside_whom_they_may(tmp_path: Path) -> None:
    runs = run_suite(tmp_path)
    slow = [run for run in runs if run[0] == "slow"]
    parallel = [run for run in runs if run[0] in ("parallel", "slow")]
    machine = [run for run in runs if run[0] == "serial"]
    core = [run for run in runs if run[0] == "core"]
    assert len(parallel) == 10 and len(machine) == 2 and len(core) == 4
    # The slow tests, last in the file, are dealt out first: one at the head of each worker's queue.
    first_of_each_worker = [min((run for run in parallel if run[3] == worker), key=lambda run: run[1])
                            for worker in ("gw0", "gw1")]
    assert sorted(slow) == sorted(first_of_each_worker)
    assert min(start for _, start, _, _ in machine + core) >= max(end for _, _, end, _ in parallel)
    # A whole-machine test runs beside no other test.
    assert not any(overlap(a, b) for a in machine for b in runs if b is not a)
    # One-core tests: never more at once than there are cores, and two at once where there are two.
    cores = len(os.sched_getaffinity(0))
    assert most_at_once(core) <= cores
    if cores >= 2:
        assert most_at_once(core) == 2 and len({worker for *_, worker in core}) == 2
    # The parallel phase did use both workers at once: some two of its tests overlapped.
    assert len({worker for *_, worker in parallel}) == 2
    assert any(overlap(a, b) for a in parallel for b in parallel if a[3] != b[3])


def test_a_run_that_deselects_the_serial_tests_ends_normally(tmp_path: Path) -> None:
    runs = run_suite(tmp_path, "-m", "not serial")
    assert len(runs) == 10 and {run[0] for run in runs} == {"parallel", "slow"}
