"""Type stub of the compiled module search.timeman (see timeman.pyx)."""

from search.limits import SearchLimits

DEFAULT_MOVES_TO_GO: int
MAX_SHARE_OF_CLOCK: float
HARD_OVER_SOFT: float
INCREMENT_SHARE: float

def time_budget(limits: SearchLimits, white_to_move: bool, move_overhead: int) -> tuple[int, int] | None: ...
