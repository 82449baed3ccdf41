"""The MCTS searcher's speed: playouts per second in each leaf mode.

``python -c "from search.mcts_bench import bench; bench()"``
"""

from __future__ import annotations

import time
from collections.abc import Callable

from search.bench import BENCH_POSITIONS
from search.board.position import Position
from search.limits import SearchLimits
from search.mcts_searcher import MCTSSearcher
from search.mcts_settings import DEFAULT_LEAF_DEPTH, DEFAULT_LEAF_DEPTH_ROOT

# (name, leaf mode, leaf depth, leaf depth near the root): the defaults first.
BENCH_MODES = (
    (f"eval-d{DEFAULT_LEAF_DEPTH}-r{DEFAULT_LEAF_DEPTH_ROOT}", "eval", DEFAULT_LEAF_DEPTH, DEFAULT_LEAF_DEPTH_ROOT),
    ("eval-d0", "eval", 0, 0), ("eval-d1", "eval", 1, 0), ("eval-d2", "eval", 2, 0), ("playout", "playout", 0, 0),
)


def bench(playouts: int = 20000, out: Callable[[str], None] = print,
          positions: list[str] | None = None, threads: int = 1,
          modes: list[str] | None = None) -> dict[str, float]:
    """Playouts per second in each leaf mode (the default quiescence leaves with depth-4 leaves
    near the root, eval at leaf depths 0, 1, 2 everywhere, and random playouts, or the `modes`
    named from BENCH_MODES) over the bench positions, `playouts` each, with the
    default PUCT selection and `threads` search threads.

    Prints wall-clock and process-CPU rates (the CPU rate is the fair one on a shared
    machine; with threads it adds up every thread's time, so compare wall rates, on an idle
    machine) and nodes (playouts plus the leaves' alpha-beta nodes) per CPU second; returns
    the CPU playout rates by mode.
    """
    rates = {}
    for name, mode, depth, root_depth in BENCH_MODES:
        if modes is not None and name not in modes:
            continue
        searcher = MCTSSearcher(hash_mb=256, threads=threads)
        searcher.leaf_mode = mode
        searcher.leaf_depth = depth
        searcher.leaf_depth_root = root_depth
        searcher.seed = 1
        total, nodes, wall, cpu = 0, 0, 0.0, 0.0
        for fen in positions if positions is not None else BENCH_POSITIONS:
            searcher.clear()
            wall_start, cpu_start = time.perf_counter(), time.process_time()
            nodes += searcher.search(Position(fen), SearchLimits(nodes=playouts)).nodes
            wall += time.perf_counter() - wall_start
            cpu += time.process_time() - cpu_start
            total += searcher.playouts
        rates[name] = total / max(cpu, 1e-9)
        out(f"{name:8s} playouts {total:8d}  wall {wall:6.2f} s {total / max(wall, 1e-9):9.0f}/s"
            f"  cpu {cpu:6.2f} s {rates[name]:9.0f}/s  nodes {nodes / max(cpu, 1e-9):9.0f}/s")
    return rates
