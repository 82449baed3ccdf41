"""Type stub of the compiled module search.reference (see reference.pyx)."""

from eval.nnue import Network
from search.board.position import Position

def minimax_value(position: Position, depth: int, network: Network | None = None) -> tuple[int, int]: ...
def alphabeta_value(position: Position, depth: int, network: Network | None = None) -> tuple[int, int]: ...
