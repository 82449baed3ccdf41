"""Type stub of the compiled module eval.bench_kernels (see bench_kernels.pyx)."""

from collections.abc import Sequence

from eval.nnue import Network
from search.board.position import Position

def bench_after_moves(positions: Sequence[Position], rounds: int,
                      network: Network | None = None) -> tuple[int, int, int]: ...
def bench_net_from_scratch(positions: Sequence[Position], rounds: int, network: Network) -> int: ...
