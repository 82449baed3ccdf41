"""Attack tables for the bitboard core: leapers, pawns, lines and magic sliders.

Magic numbers are searched for at import time with a fixed-seed generator, which
takes a few milliseconds and keeps the source free of long tables of constants.
"""

from libc.stdint cimport uint64_t
from search.types cimport Bitboard, PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING

FILE_A = 0x0101010101010101
FILE_H = FILE_A << 7
RANK_1 = 0xFF
RANK_8 = RANK_1 << 56
DARK_SQUARES = 0xAA55AA55AA55AA55


cdef inline bint on_board(int file, int rank) noexcept nogil:
    return 0 <= file < 8 and 0 <= rank < 8


cdef Bitboard slide(int square, Bitboard occupied, int df, int dr) noexcept nogil:
    """Slow ray walk in one direction, used only to build the tables."""
    cdef Bitboard result = 0
    cdef int f = (square & 7) + df, r = (square >> 3) + dr
    while on_board(f, r):
        result |= (<Bitboard>1) << (r * 8 + f)
        if occupied & ((<Bitboard>1) << (r * 8 + f)):
            break
        f += df
        r += dr
    return result


cdef Bitboard slider_attacks_slow(int square, Bitboard occupied, bint rook) noexcept nogil:
    if rook:
        return (slide(square, occupied, 1, 0) | slide(square, occupied, -1, 0)
                | slide(square, occupied, 0, 1) | slide(square, occupied, 0, -1))
    return (slide(square, occupied, 1, 1) | slide(square, occupied, -1, 1)
            | slide(square, occupied, 1, -1) | slide(square, occupied, -1, -1))


cdef Bitboard leaper_attacks(int square, const int* deltas, int count) noexcept nogil:
    cdef Bitboard result = 0
    cdef int i, f, r
    for i in range(count):
        f = (square & 7) + deltas[2 * i]
        r = (square >> 3) + deltas[2 * i + 1]
        if on_board(f, r):
            result |= (<Bitboard>1) << (r * 8 + f)
    return result


cdef uint64_t rng_state = 0x9E3779B97F4A7C15ULL

cdef uint64_t next_random() noexcept nogil:
    """xorshift64*: a fixed sequence, so the magics are the same on every run."""
    global rng_state
    rng_state ^= rng_state >> 12
    rng_state ^= rng_state << 25
    rng_state ^= rng_state >> 27
    return rng_state * 2685821657736338717ULL


cdef Bitboard edges_not_on(int square) noexcept nogil:
    """Board edges that do not matter for a slider on this square."""
    cdef Bitboard rank_edges = (RANK_1 | RANK_8) & ~(RANK_1 << (8 * (square >> 3)))
    cdef Bitboard file_edges = (FILE_A | FILE_H) & ~(FILE_A << (square & 7))
    return rank_edges | file_edges


cdef int init_magics(bint rook, Bitboard* masks, Bitboard* magics, int* shifts,
                     int* offsets, Bitboard* table) noexcept nogil:
    """Find a magic for every square; returns the table size used."""
    cdef Bitboard occupancies[4096]
    cdef Bitboard references[4096]
    cdef int epoch[4096]
    cdef int attempt = 0
    cdef int square, bits, size, i, index, offset = 0
    cdef Bitboard mask, subset, magic
    cdef bint ok
    for i in range(4096):
        epoch[i] = 0
    for square in range(64):
        mask = slider_attacks_slow(square, 0, rook) & ~edges_not_on(square)
        masks[square] = mask
        bits = popcount(mask)
        shifts[square] = 64 - bits
        offsets[square] = offset
        size = 0
        subset = 0
        # Carry-rippler: enumerate every subset of the mask.
        while True:
            occupancies[size] = subset
            references[size] = slider_attacks_slow(square, subset, rook)
            size += 1
            subset = (subset - mask) & mask
            if subset == 0:
                break
        while True:
            magic = next_random() & next_random() & next_random()
            if popcount((mask * magic) >> 56) < 6:
                continue
            attempt += 1
            ok = True
            for i in range(size):
                index = <int>(((occupancies[i] & mask) * magic) >> shifts[square])
                if epoch[index] < attempt:
                    epoch[index] = attempt
                    table[offset + index] = references[i]
                elif table[offset + index] != references[i]:
                    ok = False
                    break
            if ok:
                break
        magics[square] = magic
        offset += size
    return offset


cdef void init_tables() noexcept nogil:
    cdef int knight_deltas[16]
    cdef int king_deltas[16]
    cdef int i, a, b
    cdef int kd[16]
    knight_deltas[:] = [1, 2, 2, 1, 2, -1, 1, -2, -1, -2, -2, -1, -2, 1, -1, 2]
    king_deltas[:] = [1, 0, 1, 1, 0, 1, -1, 1, -1, 0, -1, -1, 0, -1, 1, -1]
    for i in range(64):
        KNIGHT_ATTACKS[i] = leaper_attacks(i, knight_deltas, 8)
        KING_ATTACKS[i] = leaper_attacks(i, king_deltas, 8)
        PAWN_ATTACKS[0][i] = pawn_attacks_bb((<Bitboard>1) << i, 0)
        PAWN_ATTACKS[1][i] = pawn_attacks_bb((<Bitboard>1) << i, 1)
    init_magics(True, ROOK_MASK, ROOK_MAGIC, ROOK_SHIFT, ROOK_OFFSET, ROOK_TABLE)
    init_magics(False, BISHOP_MASK, BISHOP_MAGIC, BISHOP_SHIFT, BISHOP_OFFSET, BISHOP_TABLE)
    for a in range(64):
        for b in range(64):
            BETWEEN[a][b] = 0
            LINE[a][b] = 0
            if a == b:
                continue
            if slider_attacks_slow(a, 0, True) & ((<Bitboard>1) << b):
                BETWEEN[a][b] = rook_attacks(a, (<Bitboard>1) << b) & rook_attacks(b, (<Bitboard>1) << a)
                LINE[a][b] = (rook_attacks(a, 0) & rook_attacks(b, 0)) | ((<Bitboard>1) << a) | ((<Bitboard>1) << b)
            elif slider_attacks_slow(a, 0, False) & ((<Bitboard>1) << b):
                BETWEEN[a][b] = bishop_attacks(a, (<Bitboard>1) << b) & bishop_attacks(b, (<Bitboard>1) << a)
                LINE[a][b] = (bishop_attacks(a, 0) & bishop_attacks(b, 0)) | ((<Bitboard>1) << a) | ((<Bitboard>1) << b)


cdef Bitboard attacks_of(int piece_type, int colour, int square, Bitboard occupied) noexcept nogil:
    """Squares attacked by one piece; the general form for code off the hot path."""
    if piece_type == PAWN:
        return PAWN_ATTACKS[colour][square]
    if piece_type == KNIGHT:
        return KNIGHT_ATTACKS[square]
    if piece_type == BISHOP:
        return bishop_attacks(square, occupied)
    if piece_type == ROOK:
        return rook_attacks(square, occupied)
    if piece_type == QUEEN:
        return queen_attacks(square, occupied)
    return KING_ATTACKS[square]


init_tables()
