"""Attack tables for the bitboard core: leapers, pawns, lines and magic sliders.

The magic numbers below were found by this module's own search (init_magics with
its fixed-seed generator).  They are kept here because searching takes most of a
second, and the UCI loop should answer `uci` at once; each is verified at import
and searched for again if it does not fit.
"""

from libc.stdint cimport uint64_t
from search.board.types cimport Bitboard, PAWN, KNIGHT, BISHOP, ROOK, QUEEN

FILE_A = 0x0101010101010101
FILE_H = FILE_A << 7
RANK_1 = 0xFF
RANK_8 = RANK_1 << 56
DARK_SQUARES = 0xAA55AA55AA55AA55


KNOWN_ROOK_MAGICS = [
    0x1080004008801020, 0x0840092002C03000, 0x1900200010400900, 0x0880100008000480,
    0x4200100420080200, 0x8100020100080400, 0x0200040110886200, 0x0200008040220411,
    0x0404800084400220, 0x0000401000402000, 0x0086001081220440, 0x0408800800100280,
    0x000A001201040820, 0x8848800200840080, 0x4001000100040200, 0x0442000102105084,
    0x9080010020804100, 0x0040404000201009, 0x0000808010002009, 0x2200090021D00100,
    0x0008008008040080, 0x0004004002010040, 0x0011040008015042, 0x00000A0001768104,
    0x0000800080204009, 0x2010004140002001, 0x9800200280100080, 0x1000100080080080,
    0x0442000A00049020, 0x2100040080020080, 0x0800120400900148, 0x0010040A00128541,
    0x2800804000800030, 0x1010002000400041, 0x4000200011004100, 0x0610008410800800,
    0x0400802402800800, 0xC100020080800400, 0x0002000802000401, 0x0182085882000401,
    0x0220204000808000, 0x2860100040024022, 0x0001002004110040, 0x99101042000A0020,
    0x0004080004008080, 0x0010040002008080, 0x2012004881020004, 0x8300842444820011,
    0x0088403882010200, 0x0820400080210100, 0x0110910040A00300, 0x0801100280080480,
    0x0242009008200600, 0x1002000489500200, 0x0040800200010080, 0x0091800041000080,
    0x0000209300488001, 0x04C1002414824001, 0x020020000B001041, 0x7000100004200901,
    0x8002002004100802, 0x30010002084C0007, 0x0888221800813004, 0x4000002840840112,
]
KNOWN_BISHOP_MAGICS = [
    0xA010041108003100, 0x006082020A002900, 0x6810010619200000, 0x08281A0520000408,
    0x0001104001000400, 0x0018901008048400, 0x00040A0210245280, 0x000200210808A402,
    0x9140048410821200, 0x0800091010820041, 0x20504804832202C0, 0x0100091401081000,
    0x8021011140000012, 0x0810020804450400, 0x208B0542109008A2, 0x0080084A08040204,
    0x0040E2A80811244C, 0x2505022008008108, 0x0430220100420040, 0x010A040420220040,
    0x1105000290400000, 0x0093001200822120, 0x4000A62048043004, 0x280120048A015004,
    0x006090002A020814, 0x44042000240800D0, 0x01102800040A4400, 0x1004080080220040,
    0x0001001011004024, 0x0010044000805040, 0x0914041200820100, 0x0004821012821480,
    0x0024040500C05021, 0x0088611002080200, 0x0116080A00040020, 0x4000020080080080,
    0x2450450140840040, 0x0000880201484100, 0x0222020404020092, 0x8081110600002E00,
    0x2842101105000801, 0x1100809008001025, 0x00020202221C0400, 0x0422014022009020,
    0x0210046102100C00, 0xC004008082029102, 0x00AA461801101200, 0x0404080080201108,
    0x020542108C205002, 0x0410544804100100, 0x0040910841100000, 0x0400200042021100,
    0x00004204850400C0, 0x0200100410A42102, 0x1040020801210102, 0x0805040410420000,
    0x2884804130100200, 0x800C262201242000, 0x1058000194108800, 0x0014221054420204,
    0x0104000012A02200, 0x0200881003300100, 0x0140400202840100, 0x0402020801010201,
]


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
                     int* offsets, Bitboard* table, const Bitboard* known) noexcept nogil:
    """Fill the table for every square, trying the known magic first and searching
    for a new one only if it does not fit; returns the table size used."""
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
        magic = known[square]
        while True:
            if magic == 0:
                magic = next_random() & next_random() & next_random()
                if popcount((mask * magic) >> 56) < 6:
                    magic = 0
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
            magic = 0
        magics[square] = magic
        offset += size
    return offset


cdef Bitboard known_rook[64]
cdef Bitboard known_bishop[64]


cdef void init_tables() noexcept nogil:
    cdef int knight_deltas[16]
    cdef int king_deltas[16]
    cdef int i, a, b
    knight_deltas[:] = [1, 2, 2, 1, 2, -1, 1, -2, -1, -2, -2, -1, -2, 1, -1, 2]
    king_deltas[:] = [1, 0, 1, 1, 0, 1, -1, 1, -1, 0, -1, -1, 0, -1, 1, -1]
    for i in range(64):
        KNIGHT_ATTACKS[i] = leaper_attacks(i, knight_deltas, 8)
        KING_ATTACKS[i] = leaper_attacks(i, king_deltas, 8)
        PAWN_ATTACKS[0][i] = pawn_attacks_bb((<Bitboard>1) << i, 0)
        PAWN_ATTACKS[1][i] = pawn_attacks_bb((<Bitboard>1) << i, 1)
    init_magics(True, ROOK_MASK, ROOK_MAGIC, ROOK_SHIFT, ROOK_OFFSET, ROOK_TABLE, known_rook)
    init_magics(False, BISHOP_MASK, BISHOP_MAGIC, BISHOP_SHIFT, BISHOP_OFFSET, BISHOP_TABLE, known_bishop)
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


for _square in range(64):
    known_rook[_square] = KNOWN_ROOK_MAGICS[_square]
    known_bishop[_square] = KNOWN_BISHOP_MAGICS[_square]
init_tables()


def found_magics():
    """The magics in use, (rook, bishop): to refresh the table above if the scheme changes."""
    return [ROOK_MAGIC[i] for i in range(64)], [BISHOP_MAGIC[i] for i in range(64)]
