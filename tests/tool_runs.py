"""The lab's commands as a user runs them: `python -m tools.NAME ARGS...` from the repository root."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import REPO_ROOT


def run_tool(name: str, *args: str | Path, timeout: float,
             env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`python -m tools.NAME ARGS...`, its output captured as text; `timeout` turns a hang into a failure."""
    return subprocess.run([sys.executable, "-m", f"tools.{name}", *map(str, args)], cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=timeout, check=False, env=env)
