"""Type stub of the compiled module eval.api (see api.pyx)."""

from collections.abc import Sequence

from search.board.position import Position

TERM_NAMES: tuple[str, ...]

def evaluate(position: Position) -> int: ...
def breakdown(position: Position) -> dict[str, int | tuple[int, int]]: ...
def bench_evaluate(positions: Sequence[Position], rounds: int) -> int: ...
