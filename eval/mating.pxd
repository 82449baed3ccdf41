# Mating technique the evaluation lacks: bishop and knight against a lone king.
#
# KBN v K is a win, but only by driving the lone king into a corner of the bishop's colour and
# mating there, inside the 50-move rule.  The net scores every such position about the same
# (+10 to +13), so the search has no direction to go in: against Stockfish, Kestrel drew three
# KBN v K endings by the 50-move rule in 200 games (docs/nnue.md, tools/lost_advantages.py).
# Without tablebases nothing else tells it the way.  With the search switch `kbn_mating` of
# SearchConfig on, the static evaluation of KBN v K (nothing else on the board) is replaced by
#
#     KBN_WIN
#     + KBN_CORNER_WEIGHT * (14 - the lone king's Manhattan distance to the nearer corner of the
#                                 bishop's colour: 0 there, 7 in a corner of the other colour)
#     + KBN_KINGS_WEIGHT  * (7 - the kings' distance in king moves)
#     + KBN_KNIGHT_WEIGHT * (7 - the knight's distance to the lone king in king moves)
#
# from the stronger side's view.  The corner term leads the lone king along the edge from the
# wrong corner to the right one; the two distance terms bring the attackers in, without which the
# king cannot be held at the edge.  KBN_WIN keeps the score above any position the net calls won
# by less, and far below mate and tablebase scores.

from search.board.types cimport BISHOP, KNIGHT, WHITE, BLACK
from search.board.board cimport Board
from search.board.bitboard cimport popcount

cdef enum:
    KBN_WIN = 1000
    KBN_CORNER_WEIGHT = 24
    KBN_KINGS_WEIGHT = 16
    KBN_KNIGHT_WEIGHT = 4


# The stronger side's score of KBN v K (the formula above); `strong_side` owns the bishop and knight.
cdef int kbn_mating_value(const Board* b, int strong_side) noexcept nogil


# `value` (centipawns from the side to move's view), or KBN v K's own score where the board holds
# two kings, one bishop and one knight of the same side and nothing else.  The gate is one popcount.
cdef inline int score_kbn_versus_king(const Board* b, int value) noexcept nogil:
    cdef int strong_side, score
    if popcount(b.occupied) != 4 or not b.by_type[BISHOP] or not b.by_type[KNIGHT]:
        return value
    strong_side = WHITE if b.by_colour[WHITE] & b.by_type[BISHOP] else BLACK
    if not (b.by_colour[strong_side] & b.by_type[KNIGHT]):
        return value                    # bishop against knight
    score = kbn_mating_value(b, strong_side)
    return score if b.side_to_move == strong_side else -score
