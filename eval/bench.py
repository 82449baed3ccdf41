"""Evaluations per second: ``python -m eval.bench [rounds]``.

Times the C evaluation over a fixed set of positions (start, middlegames, endgames) without
the GIL, the way the search calls it.
"""

from __future__ import annotations

import sys
import time

from eval import bench_evaluate
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


def main(argv: list[str]) -> None:
    rounds = int(argv[0]) if argv else 200_000
    positions = [Position(fen) for fen in BENCH_FENS]
    start = time.perf_counter()
    bench_evaluate(positions, rounds)
    seconds = time.perf_counter() - start
    calls = rounds * len(positions)
    print(f"{calls} evaluations in {seconds:.3f} s: {calls / seconds:,.0f} evals/s, "
          f"{1e9 * seconds / calls:.0f} ns each")


if __name__ == "__main__":
    main(sys.argv[1:])
