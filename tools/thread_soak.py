"""Soak the UCI engine's threads until something hangs: a check for races, not a measure.

``python -m tools.thread_soak [--rounds 30] [--threads 64,256,4] [--mode MCTS] [--wait 20]``

Each round, for each Threads value: two `go movetime 50` from 1. e4 (each must answer bestmove),
and two `go infinite` from the start position (each must print an info line, then answer
`stop` with bestmove), the sequence of tests/test_threads.py's many-threads test, repeated.
The tree (MCTS) and the table are kept between the searches, so the root's visits and the
prior refreshes' depths grow round after round.  When a line does not come within `--wait`
seconds it prints which, saves every thread's stack (gdb, where there is one) to
`--stacks`, and exits 1; exit 0 when every round passed.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys

from tools.thread_bench import Engine, add_engine_arguments, thread_counts


def stacks(pid: int, path: str) -> str:
    """Every thread's C stack of process `pid`, written to `path`; what was done, in words."""
    gdb = shutil.which("gdb")
    if gdb is None:
        return "no gdb on this machine: no stacks"
    with open(path, "w") as out:
        subprocess.run([gdb, "-p", str(pid), "-batch", "-ex", "thread apply all bt"], stdout=out,
                       stderr=subprocess.STDOUT, timeout=120, check=False)
    return f"stacks of every thread in {path}"


def soak(engine: Engine, rounds: int, counts: list[int], wait: float) -> str | None:
    """Run the rounds; None when all passed, else what did not come."""
    for round_number in range(1, rounds + 1):
        for threads in counts:
            engine.send(f"setoption name Threads value {threads}")
            engine.send("isready")
            if engine.wait_for("readyok", 60 + wait) is None:
                return f"round {round_number}, Threads {threads}: no readyok"
            for _ in range(2):
                engine.send("position startpos moves e2e4")
                engine.send("go movetime 50")
                if engine.wait_for("bestmove", wait) is None:
                    return f"round {round_number}, Threads {threads}: no bestmove for go movetime 50"
                engine.send("position startpos")
                engine.send("go infinite")
                if engine.wait_for("info", wait) is None:
                    return f"round {round_number}, Threads {threads}: no info line for go infinite"
                engine.send("stop")
                if engine.wait_for("bestmove", wait) is None:
                    return f"round {round_number}, Threads {threads}: no bestmove after stop"
        print(f"round {round_number} passed", flush=True)
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.thread_soak", description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=30, help="rounds of the sequence (default 30)")
    parser.add_argument("--wait", type=float, default=20.0, help="s to wait for each line (the test's 20)")
    parser.add_argument("--stacks", default="thread_soak_stacks.txt", help="where a hang's stacks go")
    add_engine_arguments(parser, threads="64,256,4", mode="MCTS")
    args = parser.parse_args(argv)
    counts = thread_counts(parser, args.threads)
    if args.rounds < 1 or args.wait <= 0:
        parser.error("--rounds must be at least 1, --wait positive")
    engine = Engine(args.engine.split())
    try:
        engine.send("uci")
        engine.send(f"setoption name SearchMode value {args.mode}")
        failure = soak(engine, args.rounds, counts, args.wait)
        if failure is not None:
            print(f"HANG: {failure}; {stacks(engine.process.pid, args.stacks)}", flush=True)
            return 1
    finally:
        engine.close()
    print(f"all {args.rounds} passed ({args.mode}, Threads {args.threads})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
