"""The lab's commands as a user runs them: `python -m tools.NAME ARGS...` from the repository root,
or the same `main(ARGS)` called in this process where a new interpreter adds nothing."""

from __future__ import annotations

import contextlib
import importlib
import io
import subprocess
import sys
from pathlib import Path

from conftest import REPO_ROOT


def run_tool(name: str, *args: str | Path, timeout: float,
             env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`python -m tools.NAME ARGS...`, its output captured as text; `timeout` turns a hang into a failure."""
    return subprocess.run([sys.executable, "-m", f"tools.{name}", *map(str, args)], cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=timeout, check=False, env=env)


def run_tool_here(name: str, *args: str | Path) -> subprocess.CompletedProcess[str]:
    """`tools.NAME.main(ARGS)` in this process, its output captured as `run_tool`'s is, and its exit
    status as the interpreter would give it.  For refusals that come before any work: they need no
    interpreter of their own (about 0.5 s each), and an exception escapes as the traceback a user
    would see.  Not for a FIFO or anything else that could block: only a subprocess can time out."""
    command = [sys.executable, "-m", f"tools.{name}", *map(str, args)]
    main = importlib.import_module(f"tools.{name}").main
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        try:
            status = main(command[3:])
        except SystemExit as exit_:
            if isinstance(exit_.code, str):        # sys.exit("message"): printed, status 1
                print(exit_.code, file=sys.stderr)
                status = 1
            else:
                status = exit_.code or 0
    return subprocess.CompletedProcess(command, status or 0, stdout.getvalue(), stderr.getvalue())
