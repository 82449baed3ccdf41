"""Where the suite's time and CPU go: one line per test, written when KESTREL_TEST_TIMELINE names a file.

`--durations` gives wall times, and on a loaded machine a test's wall time says more about its
neighbours than about itself.  What CI's length is made of is CPU: on two cores, the suite cannot
finish in less than half its CPU time however its tests are ordered.  With

    KESTREL_TEST_TIMELINE=/tmp/timeline.jsonl python3 -m pytest

each process that runs tests (every xdist worker, or the one process of `-n 0`) appends a JSON line
per test: node id, worker, wall start and end (`time.time()`), the CPU of the test process itself,
and the CPU of the child processes it waited for during the test (engines, runners, tools).  A child
reaped in a later test counts there, so a fixture's engine that outlives its test is charged to the
test that ends it.  `python3 tests/timeline.py FILE` sums the file by test module and prints how
long the phases took.  Without the variable nothing is measured or written.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from collections import defaultdict
from collections.abc import Generator
from typing import Any

import pytest

TIMELINE_ENV = "KESTREL_TEST_TIMELINE"
_started: dict[str, tuple[float, float, float]] = {}


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _measuring() -> bool:
    return bool(os.environ.get(TIMELINE_ENV))


# Setup to teardown: the hooks that run only in the process running the test (xdist's controller
# hears of each test's start and end too, but runs neither), and that take in its fixtures' work.
@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    if _measuring():
        _started[item.nodeid] = (time.time(), time.process_time(), _children_cpu())


@pytest.hookimpl(hookwrapper=True, trylast=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, None, None]:
    yield
    if not _measuring() or item.nodeid not in _started:
        return
    start, own, children = _started.pop(item.nodeid)
    # The worker's id from its own config: PYTEST_XDIST_WORKER is inherited by a pytest run inside a test.
    worker = getattr(item.config, "workerinput", {}).get("workerid", "main")
    line = {"test": item.nodeid, "worker": worker, "start": start,
            "end": time.time(), "cpu": time.process_time() - own, "children_cpu": _children_cpu() - children}
    with open(os.environ[TIMELINE_ENV], "a", encoding="utf-8") as out:
        out.write(json.dumps(line) + "\n")


def summary(lines: list[dict[str, Any]]) -> str:
    """CPU and wall by test module, most CPU first, and the span of the whole run."""
    by_module: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
    for line in lines:
        row = by_module[line["test"].split("::")[0]]
        row[0] += line["cpu"]
        row[1] += line["children_cpu"]
        row[2] += line["end"] - line["start"]
    out = [f"{'own CPU':>8} {'children':>8} {'wall':>8}  module"]
    for module, (own, children, wall) in sorted(by_module.items(), key=lambda kv: -(kv[1][0] + kv[1][1])):
        out.append(f"{own:8.1f} {children:8.1f} {wall:8.1f}  {module}")
    own = sum(line["cpu"] for line in lines)
    children = sum(line["children_cpu"] for line in lines)
    span = max(line["end"] for line in lines) - min(line["start"] for line in lines)
    out.append(f"{own:8.1f} {children:8.1f} {span:8.1f}  all {len(lines)} tests (wall: first start to last end)")
    return "\n".join(out)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python3 tests/timeline.py TIMELINE.jsonl")
    with open(sys.argv[1], encoding="utf-8") as source:
        print(summary([json.loads(text) for text in source if text.strip()]))
