"""What a search is told by ``go``: the clocks, the fixed limits and the mode.

The ranges the searchers accept live here too, the one home of these numbers for the
core and the UCI front alike.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import SupportsInt

MAX_HASH_MB = 4096     # transposition table (or MCTS node pool) size
MAX_MULTIPV = 64       # principal variations reported at once
MAX_DEPTH = 120        # deepest iteration: the C searchers' MAX_PLY (128) less room for quiescence
MAX_THREADS = 256      # search threads (Lazy SMP); each adds a fixed ~0.2 MB of search state


def checked_thread_count(value: SupportsInt | str) -> int:
    """``value`` as a thread count, or ValueError when it is not a whole number in 1..MAX_THREADS.

    Both searchers' ``threads`` setters and ``bench`` take their counts through here, so the
    range and its message live once."""
    try:
        count = int(value)
    except (TypeError, ValueError):
        raise ValueError(f"threads must be a whole number, not {value!r}") from None
    if not 1 <= count <= MAX_THREADS:
        raise ValueError(f"threads must be from 1 to {MAX_THREADS}, not {value}")
    return count


@dataclass
class SearchLimits:
    """Limits of one search; times in milliseconds, ``None`` where not given."""

    wtime: int | None = None
    btime: int | None = None
    winc: int | None = None
    binc: int | None = None
    movestogo: int | None = None
    depth: int | None = None
    nodes: int | None = None
    mate: int | None = None      # look for a mate in this many moves
    movetime: int | None = None
    infinite: bool = False          # search until stop
    ponder: bool = False            # search on the opponent's time until ponderhit or stop
    searchmoves: list[str] = field(default_factory=list)
    # Not a UCI limit: the data generator's budget.  Alpha-beta starts no new iteration once this
    # many nodes are searched (`nodes` stays the hard limit); MCTS ignores it.
    soft_nodes: int | None = None

    def fixed_limits(self) -> tuple[int, int, int]:
        """(nodes, depth, mate) as non-negative numbers for the C searchers; 0 means none."""
        return (max(0, int(self.nodes)) if self.nodes else 0,
                min(MAX_DEPTH, max(0, int(self.depth))) if self.depth else 0,
                max(0, int(self.mate)) if self.mate else 0)
