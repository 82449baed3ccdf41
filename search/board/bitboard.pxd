# Attack tables: leapers by lookup, sliders by magic bitboards.
#
# The tables are filled once when the module is imported (init_tables); the lookups
# below are inline so that every module that cimports them pays no call.

from libc.stdint cimport uint64_t
from search.board.types cimport Bitboard

cdef extern from "bitops.h" nogil:
    int popcount "kestrel_popcount"(uint64_t b)
    int lsb "kestrel_lsb"(uint64_t b)
    int msb "kestrel_msb"(uint64_t b)

cdef enum:
    ROOK_TABLE_SIZE = 102400    # sum over squares of 2^(relevant rook occupancy bits)
    BISHOP_TABLE_SIZE = 5248

cdef Bitboard FILE_A
cdef Bitboard FILE_H
cdef Bitboard RANK_1
cdef Bitboard RANK_8
cdef Bitboard DARK_SQUARES

cdef Bitboard KNIGHT_ATTACKS[64]
cdef Bitboard KING_ATTACKS[64]
cdef Bitboard PAWN_ATTACKS[2][64]   # squares a pawn of that colour on that square attacks
cdef Bitboard BETWEEN[64][64]       # squares strictly between two aligned squares, else 0
cdef Bitboard LINE[64][64]          # the whole line through two aligned squares, else 0

cdef Bitboard ROOK_MASK[64]
cdef Bitboard ROOK_MAGIC[64]
cdef int ROOK_SHIFT[64]
cdef int ROOK_OFFSET[64]
cdef Bitboard ROOK_TABLE[ROOK_TABLE_SIZE]
cdef Bitboard BISHOP_MASK[64]
cdef Bitboard BISHOP_MAGIC[64]
cdef int BISHOP_SHIFT[64]
cdef int BISHOP_OFFSET[64]
cdef Bitboard BISHOP_TABLE[BISHOP_TABLE_SIZE]


cdef inline Bitboard square_bb(int square) noexcept nogil:
    return (<Bitboard>1) << square

cdef inline int pop_lsb(Bitboard* b) noexcept nogil:
    """Index of the lowest set bit, which is cleared."""
    cdef int s = lsb(b[0])
    b[0] &= b[0] - 1
    return s

cdef inline bint more_than_one(Bitboard b) noexcept nogil:
    return (b & (b - 1)) != 0

cdef inline Bitboard rook_attacks(int square, Bitboard occupied) noexcept nogil:
    return ROOK_TABLE[ROOK_OFFSET[square]
                      + <int>(((occupied & ROOK_MASK[square]) * ROOK_MAGIC[square]) >> ROOK_SHIFT[square])]

cdef inline Bitboard bishop_attacks(int square, Bitboard occupied) noexcept nogil:
    return BISHOP_TABLE[BISHOP_OFFSET[square]
                        + <int>(((occupied & BISHOP_MASK[square]) * BISHOP_MAGIC[square]) >> BISHOP_SHIFT[square])]

cdef inline Bitboard queen_attacks(int square, Bitboard occupied) noexcept nogil:
    return rook_attacks(square, occupied) | bishop_attacks(square, occupied)

cdef inline Bitboard pawn_attacks_bb(Bitboard pawns, int colour) noexcept nogil:
    """All squares attacked by a set of pawns of one colour."""
    if colour == 0:
        return ((pawns & ~FILE_A) << 7) | ((pawns & ~FILE_H) << 9)
    return ((pawns & ~FILE_A) >> 9) | ((pawns & ~FILE_H) >> 7)

cdef Bitboard attacks_of(int piece_type, int colour, int square, Bitboard occupied) noexcept nogil
