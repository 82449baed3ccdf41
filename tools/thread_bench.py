"""How long `go movetime` and `stop` take at each Threads value, through the real UCI process.

``python -m tools.thread_bench [--threads 1,4,64,256] [--movetime 100] [--repeat 5] [--mode MCTS]``

Starts the engine (``python -m uci_engine``), and for each Threads value sets the option,
waits for ``readyok``, then times from writing ``go movetime N`` to reading ``bestmove``
(`--repeat` times), and from writing ``stop`` to reading ``bestmove`` during ``go
infinite`` (stopped after `--think` ms).  Prints the median and the worst of each, and how
long the ``setoption``/``isready`` pair took (when helper threads are made).  The engine's
`Move Overhead` (default 50 ms) is what a GUI adds to `movetime` before it calls a move late.
Wall-clock times on this machine: run it on a quiet one, and say which.
"""

from __future__ import annotations

import argparse
import os
import queue
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass

from search.limits import MAX_THREADS

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Engine:
    """The UCI process, with its output lines timestamped as they arrive."""

    def __init__(self, command: list[str]) -> None:
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                        bufsize=1, cwd=REPO_ROOT)
        self.lines: queue.Queue[tuple[float, str]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put((time.perf_counter(), line.strip()))
        self.lines.put((time.perf_counter(), ""))     # end of output

    def send(self, command: str) -> float:
        """Write one command; the moment it was written."""
        assert self.process.stdin is not None
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        return time.perf_counter()

    def wait_for(self, prefix: str, timeout: float) -> float | None:
        """The moment a line starting with `prefix` arrived; None if none came in `timeout` s."""
        deadline = time.perf_counter() + timeout
        while True:
            left = deadline - time.perf_counter()
            if left <= 0:
                return None
            try:
                moment, line = self.lines.get(timeout=left)
            except queue.Empty:
                return None
            if line.startswith(prefix):
                return moment
            if line == "" and self.process.poll() is not None:
                raise RuntimeError("the engine exited")

    def close(self) -> None:
        try:
            self.send("quit")
            self.process.wait(10)
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait()


@dataclass
class Figures:
    threads: int
    setup_ms: float
    movetime_ms: list[float]
    stop_ms: list[float]
    missed: int        # bestmoves that did not come within the timeout


def measure(engine: Engine, threads: int, movetime: int, repeat: int, think_ms: int, timeout: float) -> Figures:
    sent = engine.send(f"setoption name Threads value {threads}")
    engine.send("isready")
    ready = engine.wait_for("readyok", timeout)
    setup_ms = (ready - sent) * 1000 if ready is not None else float("nan")
    movetimes: list[float] = []
    stops: list[float] = []
    missed = 0
    for _ in range(repeat):
        engine.send("position startpos")
        sent = engine.send(f"go movetime {movetime}")
        answered = engine.wait_for("bestmove", timeout)
        if answered is None:
            missed += 1
            engine.send("stop")
            engine.wait_for("bestmove", timeout)
        else:
            movetimes.append((answered - sent) * 1000)
    for _ in range(repeat):
        engine.send("position startpos")
        engine.send("go infinite")
        time.sleep(think_ms / 1000)
        sent = engine.send("stop")
        answered = engine.wait_for("bestmove", timeout)
        if answered is None:
            missed += 1
        else:
            stops.append((answered - sent) * 1000)
    return Figures(threads, setup_ms, movetimes, stops, missed)


def shown(values: list[float]) -> str:
    if not values:
        return "        -        -"
    return f"{statistics.median(values):9.1f}{max(values):9.1f}"


def add_engine_arguments(parser: argparse.ArgumentParser, threads: str, mode: str) -> None:
    """--threads, --mode and --engine, which the thread tools share, with these defaults."""
    parser.add_argument("--threads", default=threads, help=f"Threads values, comma-separated (1..{MAX_THREADS})")
    parser.add_argument("--mode", choices=("AlphaBeta", "MCTS"), default=mode, help="the SearchMode option")
    parser.add_argument("--engine", default=f"{sys.executable} -m uci_engine", help="the engine's command line")


def thread_counts(parser: argparse.ArgumentParser, text: str) -> list[int]:
    """The Threads values of --threads; a usage error (exit 2) unless each is from 1 to MAX_THREADS."""
    try:
        counts = [int(part) for part in text.split(",")]
    except ValueError:
        parser.error(f"--threads: expected whole numbers separated by commas, not {text!r}")
    if not counts or any(not 1 <= count <= MAX_THREADS for count in counts):
        parser.error(f"--threads: each value must be from 1 to {MAX_THREADS}")
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.thread_bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--movetime", type=int, default=100, help="ms of each `go movetime` (default 100)")
    parser.add_argument("--repeat", type=int, default=5, help="searches of each kind per Threads value")
    parser.add_argument("--think", type=int, default=300, help="ms a `go infinite` runs before `stop`")
    parser.add_argument("--timeout", type=float, default=30.0, help="s to wait for a bestmove before giving up")
    add_engine_arguments(parser, threads="1,4,64,256", mode="AlphaBeta")
    args = parser.parse_args(argv)
    counts = thread_counts(parser, args.threads)
    if args.movetime < 1 or args.repeat < 1 or args.think < 0 or args.timeout <= 0:
        parser.error("--movetime and --repeat must be positive, --think not negative, --timeout positive")

    engine = Engine(args.engine.split())
    try:
        engine.send("uci")
        if engine.wait_for("uciok", args.timeout) is None:
            print("the engine did not answer uci", file=sys.stderr)
            return 1
        engine.send(f"setoption name SearchMode value {args.mode}")
        print(f"{args.mode}, {os.cpu_count()} cores; go movetime {args.movetime} and stop after {args.think} ms "
              f"of go infinite, {args.repeat} of each; times in ms from the command written to bestmove read")
        print("threads   setup   movetime: median    worst   stop: median    worst   missed")
        for count in counts:
            f = measure(engine, count, args.movetime, args.repeat, args.think, args.timeout)
            print(f"{f.threads:7d} {f.setup_ms:7.1f}          {shown(f.movetime_ms)}         {shown(f.stop_ms)}"
                  f"   {f.missed:6d}", flush=True)
    finally:
        engine.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
