# Shared constants of the core: colours, pieces, squares, moves and scores.
#
# Every module cimports from here, so a piece code or a move layout is defined once.

from libc.stdint cimport uint8_t, uint16_t, uint64_t

ctypedef uint64_t Bitboard

# A move packs into 16 bits: from (bits 0-5), to (bits 6-11), kind (bits 12-14).
# Castling is stored as "king takes own rook" so that Chess960 needs no new encoding;
# UCI output turns it back into the king's two-square move in standard chess.
ctypedef uint16_t Move

cdef enum:
    WHITE = 0
    BLACK = 1

cdef enum:
    PAWN = 0
    KNIGHT = 1
    BISHOP = 2
    ROOK = 3
    QUEEN = 4
    KING = 5
    NO_PIECE_TYPE = 6

cdef enum:
    # piece = piece_type + 6 * colour
    NO_PIECE = 12

cdef enum:
    NO_SQUARE = 64

cdef enum:
    WHITE_OO = 1
    WHITE_OOO = 2
    BLACK_OO = 4
    BLACK_OOO = 8
    ALL_CASTLING = 15

cdef enum:
    # Move kinds; the four promotion kinds equal the promoted piece type.
    MOVE_NORMAL = 0
    MOVE_PROMOTE_KNIGHT = 1
    MOVE_PROMOTE_BISHOP = 2
    MOVE_PROMOTE_ROOK = 3
    MOVE_PROMOTE_QUEEN = 4
    MOVE_EN_PASSANT = 5
    MOVE_CASTLING = 6

cdef enum:
    MOVE_NONE = 0
    MOVE_NULL = 65          # from b1 to b1: never a real move

cdef enum:
    MAX_MOVES = 256         # more than the 218 legal moves of the richest known position
    MAX_PLY = 128           # deepest search path
    MAX_GAME_PLY = 1024     # undo records kept; the oldest are dropped past this (see board.pyx)

cdef enum:
    # Scores in centipawns; mate scores carry their distance in plies from the root.
    VALUE_ZERO = 0
    VALUE_DRAW = 0
    MATE = 32000
    MATE_IN_MAX_PLY = 32000 - 128
    VALUE_INFINITE = 32001
    VALUE_NONE = 32002


cdef inline int make_piece(int colour, int piece_type) noexcept nogil:
    return piece_type + 6 * colour

cdef inline int piece_type_of(int piece) noexcept nogil:
    return piece % 6

cdef inline int colour_of(int piece) noexcept nogil:
    return piece // 6

cdef inline int rank_of(int square) noexcept nogil:
    return square >> 3

cdef inline int file_of(int square) noexcept nogil:
    return square & 7

cdef inline int square_distance(int a, int b) noexcept nogil:
    """King moves from square a to square b."""
    cdef int files = file_of(a) - file_of(b), ranks = rank_of(a) - rank_of(b)
    if files < 0:
        files = -files
    if ranks < 0:
        ranks = -ranks
    return files if files > ranks else ranks

cdef inline Move make_move(int from_sq, int to_sq, int kind) noexcept nogil:
    return <Move>(from_sq | (to_sq << 6) | (kind << 12))

cdef inline int move_from(Move m) noexcept nogil:
    return m & 63

cdef inline int move_to(Move m) noexcept nogil:
    return (m >> 6) & 63

cdef inline int move_kind(Move m) noexcept nogil:
    return m >> 12

cdef inline bint is_promotion(Move m) noexcept nogil:
    cdef int k = m >> 12
    return k >= MOVE_PROMOTE_KNIGHT and k <= MOVE_PROMOTE_QUEEN


cdef struct MoveList:
    int count
    Move moves[MAX_MOVES]
    int scores[MAX_MOVES]   # filled by move ordering; unused by the generator
