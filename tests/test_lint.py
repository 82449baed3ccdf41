"""Types and lint are part of the test command: ruff, mypy --strict and cython-lint.

Each runs with the settings in pyproject.toml over the code it covers, so a type error,
an unused cimport or a style slip fails the suite like any broken test.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import REPO_ROOT

# What mypy --strict checks: every Python module of the project, and the stubs of the core.
TYPED = ["uci_engine", "tournaments", "search", "eval", "tools", "web"]


def run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *command], cwd=REPO_ROOT, capture_output=True, text=True,
                          check=False)


@pytest.mark.slow
def test_mypy_strict() -> None:
    result = run("mypy", "--strict", *TYPED)
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff() -> None:
    result = run("ruff", "check", "uci_engine", "tournaments", "search", "eval", "tools", "web", "tests", "setup.py")
    assert result.returncode == 0, result.stdout + result.stderr


def test_cython_lint() -> None:
    sources = sorted(str(p.relative_to(REPO_ROOT)) for folder in ("search", "eval", "tools", "tests")
                     for p in (REPO_ROOT / folder).rglob("*.p[yx][xd]"))
    assert any(s.endswith(".pyx") for s in sources) and any(s.endswith(".pxd") for s in sources)
    result = run("cython_lint.cython_lint", *sources)
    assert result.returncode == 0, result.stdout + result.stderr
