"""Type stub of the compiled module eval.mating (see mating.pxd)."""

from search.board.position import Position

def kbn_score(position: Position, value: int) -> int: ...
