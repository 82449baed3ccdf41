"""The suite's timeline (tests/timeline.py): a small suite run with KESTREL_TEST_TIMELINE shows one line
per test, the test's own CPU apart from its children's, and a fixture's work charged to its test."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from timeline import summary

TESTS = Path(__file__).resolve().parent

SUITE = '''
import subprocess
import sys
import time

import pytest

BURN = "import time\\nend = time.process_time() + 0.3\\nwhile time.process_time() < end: pass"


@pytest.fixture
def busy_fixture():
    end = time.process_time() + 0.3
    while time.process_time() < end:
        pass
    yield
    subprocess.run([sys.executable, "-c", BURN], check=True)


def test_sleeps():
    time.sleep(0.3)


def test_burns_in_a_child():
    subprocess.run([sys.executable, "-c", BURN], check=True)


def test_with_a_busy_fixture(busy_fixture):
    pass
'''


def run_suite(tmp_path: Path, timeline: Path) -> None:
    (tmp_path / "test_suite.py").write_text(SUITE)
    env = {**os.environ, "KESTREL_TEST_TIMELINE": str(timeline),
           "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])}
    result = subprocess.run([sys.executable, "-m", "pytest", "-p", "timeline", "-n", "0", "-q",
                             "-p", "no:cacheprovider", str(tmp_path)], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_each_test_gets_a_line_with_its_own_and_its_childrens_cpu(tmp_path: Path) -> None:
    timeline = tmp_path / "timeline.jsonl"
    run_suite(tmp_path, timeline)
    lines = {line["test"].split("::")[1]: line for line in map(json.loads, timeline.read_text().splitlines())}
    assert set(lines) == {"test_sleeps", "test_burns_in_a_child", "test_with_a_busy_fixture"}
    sleeps, child, fixture = lines["test_sleeps"], lines["test_burns_in_a_child"], lines["test_with_a_busy_fixture"]
    assert sleeps["end"] - sleeps["start"] >= 0.3 and sleeps["cpu"] < 0.2 and sleeps["children_cpu"] < 0.2
    assert child["children_cpu"] >= 0.3 and child["cpu"] < 0.2
    # The fixture's setup burns in the test process, its teardown in a child: both are the test's.
    assert fixture["cpu"] >= 0.3 and fixture["children_cpu"] >= 0.3
    assert all(line["worker"] == "main" and line["end"] >= line["start"] for line in lines.values())
    table = summary(list(lines.values()))
    assert "test_suite.py" in table and "all 3 tests" in table

