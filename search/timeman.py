"""Time management: how long to think about one move.

Two numbers come out: a soft budget (do not start another iteration after it,
stretched while the best move keeps changing) and a hard limit (abort the search
now).  Both leave the ``Move Overhead`` for the GUI and the pipe, and the hard
limit never takes more than a fraction of what is on the clock.
"""

from __future__ import annotations

from typing import NamedTuple, Optional, Tuple

from search.limits import SearchLimits

# With no `movestogo`, plan as if this many moves remained: the game may go on long.
DEFAULT_MOVES_TO_GO = 30
# The hard limit may use at most this share of the remaining time in one move.
MAX_SHARE_OF_CLOCK = 0.35


def time_budget(limits: SearchLimits, white_to_move: bool, move_overhead: int) -> Optional[Tuple[int, int]]:
    """(soft_ms, hard_ms) for this move, or None when the clock does not bound it."""
    overhead = max(0, move_overhead)
    if limits.movetime is not None:
        budget = max(1, limits.movetime - overhead)
        return budget, budget
    remaining = limits.wtime if white_to_move else limits.btime
    increment = (limits.winc if white_to_move else limits.binc) or 0
    if remaining is None:
        return None
    remaining = max(0, remaining)
    # Lag is paid on every move out of the increment first: only the rest may be spent,
    # or at fast controls (1 s + 0.01 s) the clock drains until a hiccup flags it.
    increment = max(0, increment - overhead)
    usable = max(1, remaining - overhead)
    moves_to_go = limits.movestogo if limits.movestogo and limits.movestogo > 0 else DEFAULT_MOVES_TO_GO
    moves_to_go = min(moves_to_go, 50)
    if moves_to_go == 1:
        # The last move before the time control: use most of it, keep a margin.
        soft = usable * 0.5
        hard = usable * 0.8
    else:
        soft = usable / moves_to_go + increment * 0.8
        hard = min(usable * MAX_SHARE_OF_CLOCK, soft * 4.0)
        soft = min(soft, hard)
    # Very low clocks: rather a shallow move now than a flag.
    soft = max(1, int(soft))
    hard = max(1, int(hard))
    return soft, hard


class SearchBounds(NamedTuple):
    """Every limit of one search as plain numbers for the C state (0: no such limit)."""

    timed: bool
    fixed_time: bool    # `go movetime`: use all of it, no early stop
    soft_ms: int
    hard_ms: int
    nodes: int
    depth: int
    mate: int


def search_bounds(limits: SearchLimits, white_to_move: bool, move_overhead: int) -> SearchBounds:
    """The time budget and the fixed limits of `go`, clamped to be non-negative."""
    budget = time_budget(limits, white_to_move, move_overhead)
    return SearchBounds(
        timed=budget is not None,
        fixed_time=limits.movetime is not None,
        soft_ms=budget[0] if budget else 0,
        hard_ms=budget[1] if budget else 0,
        nodes=max(0, int(limits.nodes)) if limits.nodes else 0,
        depth=max(0, int(limits.depth)) if limits.depth else 0,
        mate=max(0, int(limits.mate)) if limits.mate else 0,
    )
