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
#
# Opposite-coloured bishops (scale_opposite_bishops below, the switch `opposite_bishops_scaling`):
# with one bishop each, on squares of different colours, and nothing else but pawns, the
# defender's bishop and king blockade the squares the other bishop cannot reach, and one or two
# extra pawns rarely win.  Against Stockfish, Kestrel drew all 10 games of 200 whose highest score
# (+2.5 to +11.3) came in such an ending; Stockfish at full strength saw at most +0.44 in 9 of those
# positions (docs/nnue.md, tools/lost_advantages.py).
#
#   bishops only, opposite colours, ahead by at most two pawns        16
#   the same, ahead by three or more                                  32

from search.board.types cimport Bitboard, PAWN, KNIGHT, BISHOP, ROOK, QUEEN, WHITE
from search.board.board cimport Board
from search.board.bitboard cimport FILE_A, FILE_H, DARK_SQUARES, popcount

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


# `value` (centipawns from the side to move's view) scaled when the only pieces left are one bishop
# each on squares of different colours.  Positions with a knight, rook or queen leave at the first test.
cdef inline int scale_opposite_bishops(const Board* b, int value) noexcept nogil:
    cdef Bitboard bishops = b.by_type[BISHOP]
    cdef int strong_side, lead
    if value == 0 or (b.by_type[KNIGHT] | b.by_type[ROOK] | b.by_type[QUEEN]):
        return value
    if popcount(bishops) != 2 or popcount(bishops & b.by_colour[WHITE]) != 1 or popcount(bishops & DARK_SQUARES) != 1:
        return value
    strong_side = b.side_to_move if value > 0 else 1 - b.side_to_move
    lead = (popcount(b.by_colour[strong_side] & b.by_type[PAWN])
            - popcount(b.by_colour[1 - strong_side] & b.by_type[PAWN]))
    return value * (16 if lead <= 2 else 32) // DRAW_SCALE_NORMAL
