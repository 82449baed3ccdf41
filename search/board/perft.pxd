# Perft: count the leaves of the legal move tree, the standard check of a move generator.

from libc.stdint cimport uint64_t
from search.board.board cimport Board

# The last ply is counted from the move list without being made ("bulk counting").
cdef uint64_t perft(Board* b, int depth) noexcept nogil

# The same, giving up (with a partial count) soon after another thread sets *stop.
cdef uint64_t perft_until(Board* b, int depth, int* stop) noexcept nogil
