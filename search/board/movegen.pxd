# Legal move generation.  Moves come out fully legal (pins, checks and en-passant
# discoveries resolved), so the search never makes a move only to take it back.

from search.board.types cimport Move, MoveList
from search.board.board cimport Board

cdef int generate_legal(const Board* b, MoveList* moves) noexcept nogil
# Captures and promotions only (for quiescence); in check it gives every evasion.
cdef int generate_noisy(const Board* b, MoveList* moves) noexcept nogil
cdef bint has_legal_move(const Board* b) noexcept nogil
cdef bint is_legal_move(const Board* b, Move m) noexcept nogil

# Python-level: a move from UCI text, MOVE_NONE when it is not legal here;
# and whether text has the form of a UCI move at all (for error messages).
cdef Move parse_uci_move(const Board* b, str text)
cdef bint is_uci_move_text(str text)
