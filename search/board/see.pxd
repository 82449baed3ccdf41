# Static exchange evaluation: the material outcome of the capture sequence on one square.

from search.board.types cimport Move
from search.board.board cimport Board

cdef int SEE_VALUE[7]    # pawn..king, and 0 for no piece

# Material won (centipawns) by `m` when both sides recapture with their least valuable
# attacker and either may stop; x-rays through moved sliders are seen.
cdef int see(const Board* b, Move m) noexcept nogil
