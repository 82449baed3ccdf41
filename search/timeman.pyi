"""Type stub of the compiled module search.timeman (see timeman.pyx)."""

from search.limits import SearchLimits

def time_budget(limits: SearchLimits, white_to_move: bool, move_overhead: int,
                params: dict[str, float] | None = None) -> tuple[int, int] | None: ...

def best_move_share_factor(best_move_share: float, params: dict[str, float] | None = None) -> float: ...
