# Material in pawn units, the textbook 1/3/3/5/9 (the king counts nothing): the one home of these
# numbers.  Rules of thumb read them (draw scaling, the WDL model's input, the lab's tallies), never
# the evaluation, whose piece values are its own (eval/weights.py, the net).

from search.board.types cimport Bitboard, PAWN, KNIGHT, BISHOP, ROOK, QUEEN
from search.board.bitboard cimport popcount
from search.board.board cimport Board

cdef enum:
    PAWN_UNITS_PAWN = 1
    PAWN_UNITS_MINOR = 3      # a knight or a bishop
    PAWN_UNITS_ROOK = 5
    PAWN_UNITS_QUEEN = 9


cdef inline int pawn_units(int piece_type) noexcept nogil:
    """A piece type's worth in pawns (0 for the king and NO_PIECE_TYPE)."""
    if piece_type == PAWN:
        return PAWN_UNITS_PAWN
    if piece_type == KNIGHT or piece_type == BISHOP:
        return PAWN_UNITS_MINOR
    if piece_type == ROOK:
        return PAWN_UNITS_ROOK
    return PAWN_UNITS_QUEEN if piece_type == QUEEN else 0


cdef inline int material_in_pawns(const Board* b, Bitboard pieces) noexcept nogil:
    """The worth in pawns of the pieces of `pieces` (a mask of squares: one side's, both sides')."""
    return (PAWN_UNITS_PAWN * popcount(pieces & b.by_type[PAWN])
            + PAWN_UNITS_MINOR * popcount(pieces & (b.by_type[KNIGHT] | b.by_type[BISHOP]))
            + PAWN_UNITS_ROOK * popcount(pieces & b.by_type[ROOK])
            + PAWN_UNITS_QUEEN * popcount(pieces & b.by_type[QUEEN]))
