"""Evaluations per second: ``python -m eval.bench [rounds]``.

Times the C evaluations over a fixed set of positions (start, middlegames, endgames) without
the GIL: the weighted evaluation on the positions themselves, then both evaluations the way a
search calls them, through a thread's Evaluator on the position after each legal move (the net's
accumulators brought up to date from the parent's), and the net with its accumulators computed
from scratch.  The net is the built-in one, the engine's default evaluation.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TypeVar

from eval import bench_evaluate
from eval.bench_kernels import bench_after_moves, bench_net_from_scratch
from eval.networks import BUILTIN_NET, builtin_network
from search.board import Position

BENCH_FENS = (
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r1bq1rk1/pp2bppp/2n1pn2/2pp4/3P4/2PBPN2/PP1N1PPP/R2QK2R w KQ - 0 8",
    "r2q1rk1/1p1nbppp/p2pbn2/4p3/4P3/1NN1BP2/PPPQ2PP/2KR1B1R b - - 4 11",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
    "8/8/4k3/3p4/3P4/4K3/8/8 b - - 0 1",
)
# The positions after every legal move are this many times the positions themselves, about:
# the benches after moves repeat that much less often, so that each takes about as long.
MOVES_PER_POSITION = 25
Result = TypeVar("Result")


def timed(label: str, calls: int, run: Callable[[], Result]) -> Result:
    """Run `run`, print its rate as `calls` evaluations, and return what it returned."""
    start = time.perf_counter()
    result = run()
    seconds = time.perf_counter() - start
    print(f"{label:40s} {calls:9d} evaluations in {seconds:6.3f} s: {calls / seconds:12,.0f} evals/s, "
          f"{1e9 * seconds / calls:5.0f} ns each")
    return result


def main(argv: list[str]) -> None:
    text = argv[0] if argv else "200000"
    if not text.isdigit() or int(text) < 1:
        print(f"eval.bench: rounds must be a whole number from 1, not {text!r}", file=sys.stderr)
        sys.exit(2)
    rounds = int(text)
    positions = [Position(fen) for fen in BENCH_FENS]
    network = builtin_network()
    timed("weighted, the positions", rounds * len(positions), lambda: bench_evaluate(positions, rounds))
    move_rounds = max(1, rounds // MOVES_PER_POSITION)
    # One untimed round counts the evaluations (and the net's refreshes) of a round.
    per_round, _, _ = bench_after_moves(positions, 1, None)
    timed("weighted, after each move", per_round * move_rounds,
          lambda: bench_after_moves(positions, move_rounds, None))
    _, refreshes, _ = timed(f"net {BUILTIN_NET}, after each move", per_round * move_rounds,
                            lambda: bench_after_moves(positions, move_rounds, network))
    print(f"  ({refreshes} of its {per_round * move_rounds} evaluations refreshed the accumulators from scratch)")
    timed(f"net {BUILTIN_NET}, from scratch", rounds * len(positions),
          lambda: bench_net_from_scratch(positions, rounds, network))


if __name__ == "__main__":
    main(sys.argv[1:])
