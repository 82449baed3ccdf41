"""Type stub of the compiled module search.timeman (see timeman.pyx)."""

from search.limits import SearchLimits

def time_budget(limits: SearchLimits, white_to_move: bool, move_overhead: int,
                params: dict[str, float] | None = None) -> tuple[int, int] | None: ...
