# Draw knowledge the evaluation lacks: material that cannot win, scaled toward 0.
#
# Both evaluations count material, so an ending such as two knights against a lone king, or a
# rook pawn whose bishop cannot cover the corner the defending king holds, looks won by the
# material it has; the search then trades into it gladly.  The scale is a factor out of
# DRAW_SCALE_NORMAL for the side the evaluation favours, chosen from its material alone:
#
#   no pawns, at most a minor piece                  0   nothing mates by force
#   no pawns, two knights, the other side no pawns   0   two knights do not force mate
#   no pawns, ahead by at most a minor piece         8   (16 when the other side has more
#                                                        than a minor): KR v KB, KRB v KR
#   pawns all on one rook file, no piece but a       0   the defending king within one square
#   bishop of the wrong colour (or no piece at all)      of the queening corner (16 when the
#                                                        defender has pawns, which may have to move)
#   anything else                                    DRAW_SCALE_NORMAL
#
# Minor pieces count 3, rooks 5 and queens 9 (pawn units) for "ahead by".
#
# The alpha-beta search applies it to every static evaluation (search/alphabeta.pyx) under the
# switch `draw_scaling` of SearchConfig, adopted by an SPRT (ledger `ab-draw-scaling-nnue7`).

from search.board.types cimport Bitboard, PAWN
from search.board.board cimport Board
from search.board.bitboard cimport FILE_A, FILE_H

cdef enum:
    DRAW_SCALE_NORMAL = 64


# The factor (0 .. DRAW_SCALE_NORMAL) for `strong_side`'s advantage; DRAW_SCALE_NORMAL unless
# one of the cases above holds.
cdef int draw_scale(const Board* b, int strong_side) noexcept nogil


# `value` (centipawns from the side to move's view) scaled for the side it favours.  The gate
# is inline: only a side without pawns, or with pawns on one rook file only, is looked at further.
cdef inline int scale_for_draws(const Board* b, int value) noexcept nogil:
    cdef int strong_side
    cdef Bitboard pawns
    if value == 0:
        return 0
    strong_side = b.side_to_move if value > 0 else 1 - b.side_to_move
    pawns = b.by_colour[strong_side] & b.by_type[PAWN]
    if pawns and (pawns & ~FILE_A) and (pawns & ~FILE_H):
        return value
    return value * draw_scale(b, strong_side) // DRAW_SCALE_NORMAL
