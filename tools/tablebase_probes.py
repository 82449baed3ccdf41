"""What probes inside the tree cost and give: `python -m tools.tablebase_probes [DEPTH] [SYZYGY_PATH]`.

Searches endgames with more men than the tables hold (so the root is not probed) to a fixed
depth, once without tables and once with probes inside the tree (SyzygyProbeDepth 1,
SyzygyProbeLimit = the largest tables found), and prints nodes, time, probes (tbhits),
score and move of each.  A probe is a call back into python-chess with the GIL, so the
time per probe is the figure to watch; the nodes saved are what it buys.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from search.alphabeta_searcher import AlphaBetaSearcher
from search.board.position import Position
from search.info import Info, SearchInfo
from search.limits import SearchLimits
from uci_engine.tablebases import Tablebases

POSITIONS = [
    "4k3/8/8/1r6/Q7/8/5P2/4K3 w - - 0 1",        # KQP v KR: Qxb5+ wins the rook into K+Q+P v K
    "8/8/4k3/8/2r5/8/3RP3/4K3 w - - 0 1",         # KRP v KR
    "8/5k2/8/3p4/3P4/4K3/8/6R1 b - - 0 1",        # KRP v KP
    "8/8/8/4k3/8/2n5/3P4/3BK3 w - - 0 1",         # KBP v KN
    "6k1/5p2/8/8/8/8/1B3PK1/8 w - - 0 1",         # KBP v KP
    "8/5pk1/6p1/8/8/6P1/5PK1/8 w - - 0 1",        # KPP v KPP, six men
    "8/8/1p3k2/8/1P6/2K5/5P2/8 w - - 0 1",        # KPP v KP
    "8/8/8/2k5/8/1R6/2P2r2/2K5 b - - 0 1",        # KRP v KR, the rooks near
]


def search(fen: str, depth: int, tables: Tablebases | None) -> tuple[int, float, int, int, str]:
    searcher = AlphaBetaSearcher(hash_mb=64)
    if tables is not None:
        searcher.set_tablebase_probe(tables.wdl_prober(True), 1, tables.max_pieces)
    infos: list[Info] = []
    start = time.perf_counter()
    result = searcher.search(Position(fen), SearchLimits(depth=depth), infos.append)
    seconds = time.perf_counter() - start
    lines = [info for info in infos if isinstance(info, SearchInfo)]
    tbhits = (lines[-1].tbhits or 0) if lines else 0
    return result.nodes, seconds, tbhits, result.value, result.best_move


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.tablebase_probes", description=__doc__.split("\n\n")[0])
    parser.add_argument("depth", type=int, nargs="?", default=14, help="plies of each search")
    # The shared data sits beside the checkout (../shared), as tests/conftest.py finds it.
    parser.add_argument("syzygy", nargs="?", default=str(Path(__file__).resolve().parents[2] / "shared/data/syzygy"),
                        help="the Syzygy tables' folder")
    args = parser.parse_args(argv)
    depth, path = args.depth, args.syzygy
    tables = Tablebases()
    problems = tables.open(path)
    if not tables.available:
        print(f"no tables in {path}: {problems}", file=sys.stderr)
        return 2
    print(f"depth {depth}, tables up to {tables.max_pieces} men")
    print(f"{'position':44} {'nodes':>9} {'s':>6} {'score':>6} {'move':5} | {'nodes':>9} {'s':>6} "
          f"{'probes':>6} {'us/probe':>8} {'score':>6} {'move':5}")
    totals = [0, 0.0, 0, 0.0, 0]
    for fen in POSITIONS:
        nodes, seconds, _, value, move = search(fen, depth, None)
        nodes_tb, seconds_tb, hits, value_tb, move_tb = search(fen, depth, tables)
        # The probe's own cost: the time the probing search took beyond its nodes' share.
        per_probe = max(0.0, seconds_tb - nodes_tb * seconds / max(nodes, 1)) / hits * 1e6 if hits else 0.0
        print(f"{fen:44} {nodes:9d} {seconds:6.2f} {value:6d} {move:5} | {nodes_tb:9d} {seconds_tb:6.2f} "
              f"{hits:6d} {per_probe:8.0f} {value_tb:6d} {move_tb:5}")
        totals = [totals[0] + nodes, totals[1] + seconds, totals[2] + nodes_tb, totals[3] + seconds_tb,
                  totals[4] + hits]
    print(f"total: without tables {totals[0]} nodes in {totals[1]:.2f} s; with probes {totals[2]} nodes "
          f"in {totals[3]:.2f} s, {totals[4]} probes")
    tables.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
