"""What a search is told by ``go``: the clocks, the fixed limits and the mode."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Optional


@dataclass
class SearchLimits:
    """Limits of one search; times in milliseconds, ``None`` where not given."""

    wtime: Optional[int] = None
    btime: Optional[int] = None
    winc: Optional[int] = None
    binc: Optional[int] = None
    movestogo: Optional[int] = None
    depth: Optional[int] = None
    nodes: Optional[int] = None
    mate: Optional[int] = None      # look for a mate in this many moves
    movetime: Optional[int] = None
    infinite: bool = False          # search until stop
    ponder: bool = False            # search on the opponent's time until ponderhit or stop
    searchmoves: List[str] = field(default_factory=list)

    def is_timed(self) -> bool:
        """Whether the clock of either side or a fixed move time bounds the search."""
        return any(v is not None for v in (self.wtime, self.btime, self.movetime))
