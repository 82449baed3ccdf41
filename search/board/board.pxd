# The game model: a chess position as bitboards, with make/unmake and the rules
# that need no move list (attacks, draws by rule, insufficient material).

from libc.stdint cimport uint8_t
from search.board.types cimport Bitboard, Move, MAX_GAME_PLY


cdef enum:
    # A capture-promotion changes most: the pawn vanishes, the new piece appears, the captured one vanishes.
    MAX_PIECE_CHANGES = 3


cdef struct PieceChange:
    # One piece that a move moved (from_sq -> to_sq), made appear (from_sq NO_SQUARE) or
    # made vanish (to_sq NO_SQUARE): what an incremental evaluation needs to know of the move.
    uint8_t piece
    uint8_t from_sq
    uint8_t to_sq


cdef struct UndoRecord:
    # What do_move cannot recompute when it is undone, and what it changed on the board.
    Bitboard key              # of the position before the move
    Bitboard checkers
    int halfmove_clock
    int plies_from_null
    Move move
    uint8_t captured          # piece code, NO_PIECE when the move captured nothing
    uint8_t castling
    uint8_t ep_square
    uint8_t change_count      # 0 for a null move; a castling king or rook that stays put is left out
    PieceChange changes[MAX_PIECE_CHANGES]


cdef struct Board:
    Bitboard by_type[6]       # both colours
    Bitboard by_colour[2]
    Bitboard occupied
    uint8_t squares[64]       # piece code per square, NO_PIECE when empty
    int side_to_move
    int castling              # WHITE_OO | WHITE_OOO | BLACK_OO | BLACK_OOO
    int ep_square             # set only when an en-passant capture is legal, else NO_SQUARE
    int halfmove_clock
    int fullmove_number
    int plies_from_null       # repetitions never reach across a null move
    Bitboard key              # Zobrist key, updated incrementally
    Bitboard checkers         # enemy pieces giving check to the side to move
    bint chess960             # castling written as king-takes-rook in UCI
    # Castling is described by squares, not assumed, so Chess960 fits in later.
    # Index 0..3 is the bit number of the right (WHITE_OO, WHITE_OOO, BLACK_OO, BLACK_OOO).
    int castling_rook_square[4]
    Bitboard castling_path[4]        # must be empty (the king and rook themselves excepted)
    Bitboard castling_king_path[4]   # squares the king crosses or lands on: never attacked
    int castling_rights_mask[64]     # rights kept when a move touches this square
    int game_ply                     # undo records in use
    UndoRecord history[MAX_GAME_PLY]


cdef inline Bitboard pieces_of(const Board* b, int colour, int piece_type) noexcept nogil:
    return b.by_colour[colour] & b.by_type[piece_type]

cdef int king_square(const Board* b, int colour) noexcept nogil
cdef Bitboard attackers_to(const Board* b, int square, Bitboard occupied) noexcept nogil
cdef bint is_attacked_by(const Board* b, int square, int colour, Bitboard occupied) noexcept nogil
cdef Bitboard pinned_pieces(const Board* b, int colour) noexcept nogil
cdef bint ep_capture_is_legal(const Board* b, int from_sq, int ep_square) noexcept nogil

cdef void do_move(Board* b, Move m) noexcept nogil
cdef void undo_move(Board* b) noexcept nogil
cdef void do_null_move(Board* b) noexcept nogil
cdef void undo_null_move(Board* b) noexcept nogil

cdef bint is_draw_by_repetition(const Board* b, int ply_from_root) noexcept nogil
cdef int repetition_count(const Board* b) noexcept nogil
cdef bint is_insufficient_material(const Board* b) noexcept nogil
cdef bint side_has_insufficient_material(const Board* b, int colour) noexcept nogil
cdef Bitboard compute_key(const Board* b) noexcept nogil
cdef void drop_old_history(Board* b, int keep) noexcept nogil

# Python-level helpers (hold the GIL): FEN in and out, UCI text of a move.
cdef int set_fen(Board* b, str fen, bint chess960=*) except -1
cdef str get_fen(const Board* b)
cdef str move_to_uci(const Board* b, Move m)
