"""Draw knowledge the evaluation lacks (draw_scale.pxd): the factor, and its Python face for tests."""

from search.board.types cimport (
    Bitboard, PAWN, KNIGHT, BISHOP, KING, WHITE, file_of, square_distance,
)
from search.board.bitboard cimport popcount, lsb, square_bb, DARK_SQUARES, FILE_A, FILE_H
from search.board.material cimport material_in_pawns
from search.board.position cimport Position


cdef inline int non_pawn_material(const Board* b, int colour) noexcept nogil:
    """Pieces other than pawns and the king, in pawn units (search/board/material.pxd)."""
    return material_in_pawns(b, b.by_colour[colour] & ~b.by_type[PAWN])


cdef int draw_scale(const Board* b, int strong_side) noexcept nogil:
    cdef int weak_side = 1 - strong_side
    cdef Bitboard ours = b.by_colour[strong_side]
    cdef Bitboard our_pawns = ours & b.by_type[PAWN]
    cdef Bitboard their_pawns = b.by_colour[weak_side] & b.by_type[PAWN]
    cdef Bitboard our_pieces = ours & ~b.by_type[PAWN] & ~b.by_type[KING]
    cdef int ours_npm = non_pawn_material(b, strong_side)
    cdef int theirs_npm
    cdef int queening_square, their_king

    if not our_pawns:
        if ours_npm <= 3:
            return 0
        if our_pieces == (ours & b.by_type[KNIGHT]) and popcount(our_pieces) == 2 and not their_pawns:
            return 0
        theirs_npm = non_pawn_material(b, weak_side)
        if ours_npm - theirs_npm <= 3:
            return 8 if theirs_npm <= 3 else 16
        return DRAW_SCALE_NORMAL

    if (our_pawns & ~FILE_A) and (our_pawns & ~FILE_H):
        return DRAW_SCALE_NORMAL        # pawns off the rook files, or on both
    queening_square = file_of(lsb(our_pawns)) + (56 if strong_side == WHITE else 0)
    if our_pieces:
        if our_pieces != (ours & b.by_type[BISHOP]) or popcount(our_pieces) != 1:
            return DRAW_SCALE_NORMAL
        # A bishop that could cover the queening square wins; one of the other colour cannot.
        if ((our_pieces & DARK_SQUARES) != 0) == ((square_bb(queening_square) & DARK_SQUARES) != 0):
            return DRAW_SCALE_NORMAL
    their_king = lsb(b.by_colour[weak_side] & b.by_type[KING])
    if square_distance(their_king, queening_square) > 1:
        return DRAW_SCALE_NORMAL
    return 16 if their_pawns else 0


def drawish_scale(Position position not None, strong_side: int) -> int:
    """The factor out of 64 for `strong_side`'s (0 White, 1 Black) advantage in `position`."""
    if strong_side not in (0, 1):
        raise ValueError("strong_side is 0 (White) or 1 (Black)")
    return draw_scale(position.board, strong_side)


def scaled_for_draws(Position position not None, value: int) -> int:
    """`value` (centipawns, side to move's view) as the search sees it with draw scaling on."""
    return scale_for_draws(position.board, value)
