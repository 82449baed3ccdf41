"""Type stub of the compiled module tools.texel_kernels (see texel_kernels.pyx)."""

from collections.abc import Sequence
from typing import Any

from search.board.position import Position

PACKED_WORDS: int

# Buffers: numpy arrays (uint64 (n, 9); int32, int32, int8 of n) or any writable buffer of those types.
def pack_positions(positions: Sequence[Position], out: Any) -> None: ...
def raw_sums(packed: Any, mg: Any, eg: Any, phase: Any) -> None: ...
