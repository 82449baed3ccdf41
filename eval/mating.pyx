"""Mating technique the evaluation lacks (mating.pxd): KBN v K's score, and its Python face for tests."""

from search.board.types cimport BISHOP, KNIGHT, KING, file_of, rank_of, square_distance
from search.board.bitboard cimport DARK_SQUARES, lsb, square_bb
from search.board.position cimport Position


cdef inline int manhattan_distance(int a, int b) noexcept nogil:
    cdef int files = file_of(a) - file_of(b), ranks = rank_of(a) - rank_of(b)
    return (files if files >= 0 else -files) + (ranks if ranks >= 0 else -ranks)


cdef int kbn_mating_value(const Board* b, int strong_side) noexcept nogil:
    cdef int weak_side = 1 - strong_side
    cdef int bishop = lsb(b.by_type[BISHOP])
    cdef int knight = lsb(b.by_type[KNIGHT])
    cdef int our_king = lsb(b.by_colour[strong_side] & b.by_type[KING])
    cdef int their_king = lsb(b.by_colour[weak_side] & b.by_type[KING])
    cdef int first_corner, second_corner, to_corner, other
    # a1 and h8 are dark; h1 and a8 light.
    if square_bb(bishop) & DARK_SQUARES:
        first_corner, second_corner = 0, 63
    else:
        first_corner, second_corner = 7, 56
    to_corner = manhattan_distance(their_king, first_corner)
    other = manhattan_distance(their_king, second_corner)
    if other < to_corner:
        to_corner = other
    return (KBN_WIN + KBN_CORNER_WEIGHT * (14 - to_corner)
            + KBN_KINGS_WEIGHT * (7 - square_distance(our_king, their_king))
            + KBN_KNIGHT_WEIGHT * (7 - square_distance(knight, their_king)))


def kbn_score(Position position not None, value: int) -> int:
    """`value` (centipawns, side to move's view) as the search sees it with `kbn_mating` on."""
    return score_kbn_versus_king(position.board, value)
