#!/usr/bin/env python3
"""fake_uci.py, except on the Dask workers where it cannot start (as if its binary were missing there).

usage: picky_uci.py DIR POLICY MODE [AFTER]

A worker is told apart by the engine's parent process (the worker process that
starts it); DIR keeps the count of starts of each. Where it cannot start, it
exits at once with status 127, as a shell does for a missing command;
elsewhere it becomes ``fake_uci.py MODE AFTER``.
  first-worker    only the first worker that starts it can (a worker that joins later cannot)
  check-only      each worker can start it once (its start-up check); the first worker to start it
                  a second time cannot, from then on
  check-only-all  each worker can start it once (its start-up check), then never
  kill-worker     while DIR/kill exists, a second start on a worker kills that worker (SIGKILL)
"""

import os
import signal
import sys

FAKE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fake_uci.py")


def claim(path: str, value: str) -> str:
    """Write `value` to `path` unless it exists; return what the file holds."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
        os.write(fd, value.encode())
        os.close(fd)
    except FileExistsError:
        pass
    with open(path, encoding="utf-8") as f:
        return f.read()


def main() -> None:
    folder, policy, mode = sys.argv[1:4]
    after = sys.argv[4] if len(sys.argv) > 4 else "3"
    worker = str(os.getppid())
    with open(os.path.join(folder, f"starts-{worker}"), "a", encoding="utf-8") as f:
        f.write("x")
    starts = os.path.getsize(os.path.join(folder, f"starts-{worker}"))
    refused = False
    if policy == "first-worker":
        refused = claim(os.path.join(folder, "good"), worker) != worker
    elif policy == "check-only":
        refused = starts > 1 and claim(os.path.join(folder, "bad"), worker) == worker
    elif policy == "check-only-all":
        refused = starts > 1
    elif policy == "kill-worker":
        if starts > 1 and os.path.exists(os.path.join(folder, "kill")):
            os.kill(os.getppid(), signal.SIGKILL)
    if refused:
        sys.exit(127)
    os.execv(sys.executable, [sys.executable, FAKE, mode, after])


if __name__ == "__main__":
    main()
