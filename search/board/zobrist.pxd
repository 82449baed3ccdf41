# Zobrist keys: one random 64-bit number per (piece, square), castling state,
# en-passant file and side to move; a position's key is the XOR of its features.

from search.board.types cimport Bitboard

cdef Bitboard ZOBRIST_PIECE[12][64]
cdef Bitboard ZOBRIST_CASTLING[16]
cdef Bitboard ZOBRIST_EP_FILE[8]
cdef Bitboard ZOBRIST_SIDE
