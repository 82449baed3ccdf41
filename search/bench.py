"""``bench``: a fixed set of positions searched to a fixed depth.

The total node count is a signature of the search and its evaluation: it changes only when
one of them changes.  Nodes per second is the speed figure.  Run it as
``kestrel bench [depth [threads]]``, ``bench`` in UCI, or ``python -m search.bench``.
The signature is that of one thread; with more threads (Lazy SMP) the node count
varies from run to run and only nodes per second is a figure.

It searches with the engine's default evaluation, the built-in net (UCI ``bench`` with the
evaluation the options choose).  ``--weighted`` searches with the weighted evaluation instead,
which has its own signature.  ``--nnue NET`` runs the bench twice in one go, with the weighted
evaluation and then with an NNUE network, and compares their speed: NET is ``builtin`` (the
shipped net) or a net file.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

from eval.networks import builtin_network, load_network
from eval.nnue import Network
from search.board.position import Position
from search.limits import SearchLimits, checked_thread_count
from search.searcher import Searcher

DEFAULT_DEPTH = 11

# Openings, middlegames with tactics, and endgames, so every part of the search is used.
BENCH_POSITIONS: list[str] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 10",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 11",
    "4rrk1/pp1n3p/3q2pQ/2p1pb2/2PP4/2P3N1/P2B2PP/4RRK1 b - - 7 19",
    "rq3rk1/ppp2ppp/1bnpb3/3N2B1/3NP3/7P/PPPQ1PP1/2KR3R w - - 7 14",
    "r1bq1r1k/1pp1n1pp/1p1p4/4p2Q/4Pp2/1BNP4/PPP2PPP/3R1RK1 w - - 2 14",
    "r3r1k1/2p2ppp/p1p1bn2/8/1q2P3/2NPQN2/PPP3PP/R4RK1 b - - 2 15",
    "r1bbk1nr/pp3p1p/2n5/1N4p1/2Np1B2/8/PPP2PPP/2KR1B1R w kq - 0 13",
    "r1bq1rk1/ppp1nppp/4n3/3p3Q/3P4/1BP1B3/PP1N2PP/R4RK1 w - - 1 16",
    "4r1k1/r1q2ppp/ppp2n2/4P3/5Rb1/1N1BQ3/PPP3PP/R5K1 w - - 1 17",
    "2rqkb1r/ppp2p2/2npb1p1/1N1Nn2p/2P1PP2/8/PP2B1PP/R1BQK2R b KQ - 0 11",
    "r1b2rk1/2q1b1pp/p2ppn2/1p6/3QP3/1BN1B3/PPP3PP/R4RK1 w - - 0 1",
    "3r1rk1/p5pp/bpp1pp2/8/q1PP1P2/b3P3/P2NQRPP/1R2B1K1 b - - 6 22",
    "6k1/6p1/6Pp/ppp5/3pn2P/1P3K2/1PP2P2/3N4 b - - 0 1",
    "8/8/8/8/5kp1/P7/8/1K1N4 w - - 0 1",
    "8/3k4/8/8/8/4B3/4KB2/2B5 w - - 0 1",
]


def run_bench(depth: int | None = None, hash_mb: int = 16, out: Callable[[str], None] = print, threads: int = 1,
              searcher: Searcher | None = None, should_stop: Callable[[], bool] | None = None,
              network: Network | None = None) -> tuple[int, int]:
    """Search every bench position to `depth` with a fresh table; returns (nodes, nps).
    `network` (an NNUE network) replaces the weighted evaluation of a searcher made here.

    A caller that may stop it early (the UCI `bench` command) passes the searcher, which it
    can `stop()`, and `should_stop`; a stopped bench says so and its figures are partial."""
    from search.alphabeta_searcher import AlphaBetaSearcher

    depth = DEFAULT_DEPTH if depth is None or depth < 1 else int(depth)
    if searcher is None:
        searcher = AlphaBetaSearcher(hash_mb=hash_mb, threads=threads)
        searcher.set_network(network)
    total_nodes = 0
    start = time.perf_counter()
    for index, fen in enumerate(BENCH_POSITIONS, 1):
        # Armed before the check: a stop sent from here on reaches this search.
        searcher.arm()
        if should_stop is not None and should_stop():
            out(f"bench stopped after {index - 1} positions: the figures below are partial")
            break
        searcher.clear()
        result = searcher.search(Position(fen), SearchLimits(depth=depth))
        total_nodes += result.nodes
        out(f"position {index:2d}/{len(BENCH_POSITIONS)}  bestmove {result.best_move:6s} "
            f"score {result.score[0]} {result.score[1]:6d}  nodes {result.nodes}")
    seconds = max(time.perf_counter() - start, 1e-9)
    nps = int(total_nodes / seconds)
    out("===========================")
    out(f"Total time (ms) : {int(seconds * 1000)}")
    out(f"Nodes searched  : {total_nodes}")
    out(f"Nodes/second    : {nps}")
    if threads > 1:
        out(f"Threads         : {threads}")
    return total_nodes, nps


def parse_nnue(args: list[str]) -> tuple[list[str], Network | None]:
    """`args` without `--nnue NET`, and the network it names (None when the flag is absent);
    ValueError or OSError when NET cannot be had."""
    if "--nnue" not in args:
        return args, None
    at = args.index("--nnue")
    value = args[at + 1] if at + 1 < len(args) else ""
    rest = args[:at] + args[at + 2:]
    if value == "builtin":
        return rest, builtin_network()
    if not value:
        raise ValueError("--nnue takes builtin or a net file")
    return rest, load_network(value)[0]


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    weighted = "--weighted" in args
    args = [arg for arg in args if arg != "--weighted"]
    try:
        args, network = parse_nnue(args)
        default_network = None if weighted or network is not None else builtin_network()
    except (OSError, ValueError) as error:
        print(f"bench: {error}", file=sys.stderr)
        return 2
    try:
        depth = int(args[0]) if args else None
    except ValueError:
        print(f"bench: the depth must be a whole number, not {args[0]!r}", file=sys.stderr)
        return 2
    try:
        threads = checked_thread_count(args[1]) if len(args) > 1 else 1
    except ValueError as error:
        print(f"bench: {error}", file=sys.stderr)
        return 2
    if network is None:
        run_bench(depth, threads=threads, network=default_network)
        return 0
    print("== the weighted evaluation")
    _, weighted_nps = run_bench(depth, threads=threads)
    print(f"== NNUE: a {network.hidden}-wide network (output_chunk {network.output_chunk})")
    _, nnue_nps = run_bench(depth, threads=threads, network=network)
    print(f"NNUE nodes/second: {nnue_nps} against {weighted_nps} weighted ({100 * nnue_nps / weighted_nps:.0f}%)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
