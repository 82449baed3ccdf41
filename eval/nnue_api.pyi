"""Type stub of the compiled module eval.nnue_api (see nnue_api.pyx)."""

from eval.nnue import Network
from search.board.position import Position

def nnue_evaluate(network: Network, position: Position) -> int: ...
