"""The chess position: bitboards, make/unmake with an undo stack, FEN, and rule checks.

Everything on the search path is C (``noexcept nogil``).  FEN parsing and printing
hold the GIL: they run once per ``position`` command, never inside a search.
"""

from libc.string cimport memset, memmove
from libc.stdint cimport uint8_t
from search.board.types cimport (
    Bitboard, Move, WHITE, BLACK, PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING, NO_PIECE,
    NO_SQUARE, MOVE_NONE, MOVE_NULL, MOVE_EN_PASSANT, MOVE_CASTLING,
    make_piece, piece_type_of, colour_of, rank_of, file_of,
    move_from, move_to, move_kind, is_promotion,
)
from search.board.bitboard cimport (
    popcount, lsb, square_bb, pop_lsb, more_than_one, rook_attacks, bishop_attacks,
    KNIGHT_ATTACKS, KING_ATTACKS, PAWN_ATTACKS, BETWEEN, DARK_SQUARES,
)
from search.board.zobrist cimport ZOBRIST_PIECE, ZOBRIST_CASTLING, ZOBRIST_EP_FILE, ZOBRIST_SIDE


# ---------------------------------------------------------------- piece placement

cdef inline void put_piece(Board* b, int piece, int square) noexcept nogil:
    cdef Bitboard bb = square_bb(square)
    b.by_type[piece_type_of(piece)] |= bb
    b.by_colour[colour_of(piece)] |= bb
    b.occupied |= bb
    b.squares[square] = piece

cdef inline void remove_piece(Board* b, int square) noexcept nogil:
    cdef int piece = b.squares[square]
    cdef Bitboard bb = square_bb(square)
    b.by_type[piece_type_of(piece)] ^= bb
    b.by_colour[colour_of(piece)] ^= bb
    b.occupied ^= bb
    b.squares[square] = NO_PIECE

cdef inline void move_piece(Board* b, int from_sq, int to_sq) noexcept nogil:
    cdef int piece = b.squares[from_sq]
    cdef Bitboard both = square_bb(from_sq) | square_bb(to_sq)
    b.by_type[piece_type_of(piece)] ^= both
    b.by_colour[colour_of(piece)] ^= both
    b.occupied ^= both
    b.squares[from_sq] = NO_PIECE
    b.squares[to_sq] = piece


# ---------------------------------------------------------------- attacks

cdef int king_square(const Board* b, int colour) noexcept nogil:
    return lsb(b.by_colour[colour] & b.by_type[KING])

cdef Bitboard attackers_to(const Board* b, int square, Bitboard occupied) noexcept nogil:
    """Pieces of both colours attacking a square, sliders seen through `occupied`."""
    return ((PAWN_ATTACKS[BLACK][square] & pieces_of(b, WHITE, PAWN))
            | (PAWN_ATTACKS[WHITE][square] & pieces_of(b, BLACK, PAWN))
            | (KNIGHT_ATTACKS[square] & b.by_type[KNIGHT])
            | (KING_ATTACKS[square] & b.by_type[KING])
            | (bishop_attacks(square, occupied) & (b.by_type[BISHOP] | b.by_type[QUEEN]))
            | (rook_attacks(square, occupied) & (b.by_type[ROOK] | b.by_type[QUEEN])))

cdef bint is_attacked_by(const Board* b, int square, int colour, Bitboard occupied) noexcept nogil:
    cdef Bitboard them = b.by_colour[colour]
    if PAWN_ATTACKS[1 - colour][square] & them & b.by_type[PAWN]:
        return True
    if KNIGHT_ATTACKS[square] & them & b.by_type[KNIGHT]:
        return True
    if KING_ATTACKS[square] & them & b.by_type[KING]:
        return True
    if bishop_attacks(square, occupied) & them & (b.by_type[BISHOP] | b.by_type[QUEEN]):
        return True
    return (rook_attacks(square, occupied) & them & (b.by_type[ROOK] | b.by_type[QUEEN])) != 0

cdef Bitboard pinned_pieces(const Board* b, int colour) noexcept nogil:
    """Pieces of `colour` that stand alone between their king and an enemy slider."""
    cdef int ksq = king_square(b, colour)
    cdef Bitboard them = b.by_colour[1 - colour]
    cdef Bitboard snipers = ((rook_attacks(ksq, 0) & (b.by_type[ROOK] | b.by_type[QUEEN]))
                             | (bishop_attacks(ksq, 0) & (b.by_type[BISHOP] | b.by_type[QUEEN]))) & them
    cdef Bitboard pinned = 0, blockers
    while snipers:
        blockers = BETWEEN[ksq][pop_lsb(&snipers)] & b.occupied
        if blockers and not more_than_one(blockers):
            pinned |= blockers & b.by_colour[colour]
    return pinned

cdef bint ep_capture_is_legal(const Board* b, int from_sq, int ep_square) noexcept nogil:
    """Whether the side to move may take en passant from `from_sq`.

    Played out on the occupancy, because the capture removes two pieces from a line
    at once: the classic case is a king and an enemy rook on the fifth rank.
    """
    cdef int us = b.side_to_move, them = 1 - b.side_to_move
    cdef int captured_sq = ep_square - 8 if us == WHITE else ep_square + 8
    cdef int ksq = king_square(b, us)
    cdef Bitboard occupied = (b.occupied ^ square_bb(from_sq) ^ square_bb(captured_sq)) | square_bb(ep_square)
    cdef Bitboard enemy = b.by_colour[them]
    if bishop_attacks(ksq, occupied) & enemy & (b.by_type[BISHOP] | b.by_type[QUEEN]):
        return False
    if rook_attacks(ksq, occupied) & enemy & (b.by_type[ROOK] | b.by_type[QUEEN]):
        return False
    if KNIGHT_ATTACKS[ksq] & enemy & b.by_type[KNIGHT]:
        return False
    if PAWN_ATTACKS[us][ksq] & enemy & b.by_type[PAWN] & ~square_bb(captured_sq):
        return False
    return True

cdef inline bint any_legal_ep(const Board* b, int ep_square) noexcept nogil:
    cdef Bitboard capturers = PAWN_ATTACKS[1 - b.side_to_move][ep_square] & pieces_of(b, b.side_to_move, PAWN)
    while capturers:
        if ep_capture_is_legal(b, pop_lsb(&capturers), ep_square):
            return True
    return False


# ---------------------------------------------------------------- make / unmake

cdef inline int castled_king_square(int colour, bint king_side) noexcept nogil:
    """Where the king stands after castling (g1/c1, g8/c8), in Chess960 as in standard chess."""
    return (6 if king_side else 2) + 56 * colour


cdef inline int castled_rook_square(int colour, bint king_side) noexcept nogil:
    """Where the castling rook stands after castling (f1/d1, f8/d8)."""
    return (5 if king_side else 3) + 56 * colour


cdef inline void record_change(UndoRecord* rec, int piece, int from_sq, int to_sq) noexcept nogil:
    cdef PieceChange* change = &rec.changes[rec.change_count]
    change.piece = <uint8_t>piece
    change.from_sq = <uint8_t>from_sq
    change.to_sq = <uint8_t>to_sq
    rec.change_count += 1


cdef inline UndoRecord* push_undo(Board* b, Move m) noexcept nogil:
    """The next undo record, holding what the move `m` (or MOVE_NULL) cannot recompute when undone."""
    cdef UndoRecord* rec = &b.history[b.game_ply]
    b.game_ply += 1
    rec.key = b.key
    rec.checkers = b.checkers
    rec.move = m
    rec.captured = NO_PIECE
    rec.castling = b.castling
    rec.ep_square = b.ep_square
    rec.halfmove_clock = b.halfmove_clock
    rec.plies_from_null = b.plies_from_null
    rec.change_count = 0
    return rec


cdef void do_move(Board* b, Move m) noexcept nogil:
    cdef UndoRecord* rec = push_undo(b, m)
    cdef int us = b.side_to_move, them = 1 - b.side_to_move
    cdef int from_sq = move_from(m), to_sq = move_to(m), kind = move_kind(m)
    cdef int piece = b.squares[from_sq], captured = NO_PIECE
    cdef int captured_sq, rook_to, king_to, promoted, double_push_ep = NO_SQUARE
    cdef Bitboard key = b.key
    cdef int old_castling = b.castling

    if b.ep_square != NO_SQUARE:
        key ^= ZOBRIST_EP_FILE[file_of(b.ep_square)]
        b.ep_square = NO_SQUARE
    b.halfmove_clock += 1
    b.plies_from_null += 1

    if kind == MOVE_CASTLING:
        # to_sq holds the rook; lift both pieces first, as they may swap squares in Chess960.
        king_to = castled_king_square(us, to_sq > from_sq)
        rook_to = castled_rook_square(us, to_sq > from_sq)
        remove_piece(b, from_sq)
        remove_piece(b, to_sq)
        put_piece(b, make_piece(us, KING), king_to)
        put_piece(b, make_piece(us, ROOK), rook_to)
        key ^= (ZOBRIST_PIECE[make_piece(us, KING)][from_sq] ^ ZOBRIST_PIECE[make_piece(us, KING)][king_to]
                ^ ZOBRIST_PIECE[make_piece(us, ROOK)][to_sq] ^ ZOBRIST_PIECE[make_piece(us, ROOK)][rook_to])
        # In Chess960 the king or the rook may already stand on its castled square.
        if king_to != from_sq:
            record_change(rec, make_piece(us, KING), from_sq, king_to)
        if rook_to != to_sq:
            record_change(rec, make_piece(us, ROOK), to_sq, rook_to)
    else:
        if kind == MOVE_EN_PASSANT:
            captured_sq = to_sq - 8 if us == WHITE else to_sq + 8
            captured = b.squares[captured_sq]
            remove_piece(b, captured_sq)
            key ^= ZOBRIST_PIECE[captured][captured_sq]
            b.halfmove_clock = 0
            record_change(rec, captured, captured_sq, NO_SQUARE)
        elif b.squares[to_sq] != NO_PIECE:
            captured = b.squares[to_sq]
            remove_piece(b, to_sq)
            key ^= ZOBRIST_PIECE[captured][to_sq]
            b.halfmove_clock = 0
            record_change(rec, captured, to_sq, NO_SQUARE)
        move_piece(b, from_sq, to_sq)
        key ^= ZOBRIST_PIECE[piece][from_sq] ^ ZOBRIST_PIECE[piece][to_sq]
        if is_promotion(m):
            b.halfmove_clock = 0
            promoted = make_piece(us, kind)   # promotion kinds equal piece types
            remove_piece(b, to_sq)
            put_piece(b, promoted, to_sq)
            key ^= ZOBRIST_PIECE[piece][to_sq] ^ ZOBRIST_PIECE[promoted][to_sq]
            record_change(rec, piece, from_sq, NO_SQUARE)
            record_change(rec, promoted, NO_SQUARE, to_sq)
        else:
            record_change(rec, piece, from_sq, to_sq)
            if piece_type_of(piece) == PAWN:
                b.halfmove_clock = 0
                if to_sq - from_sq == 16 or from_sq - to_sq == 16:
                    double_push_ep = (from_sq + to_sq) >> 1
    rec.captured = captured

    b.castling &= b.castling_rights_mask[from_sq] & b.castling_rights_mask[to_sq]
    if b.castling != old_castling:
        key ^= ZOBRIST_CASTLING[old_castling] ^ ZOBRIST_CASTLING[b.castling]

    b.side_to_move = them
    key ^= ZOBRIST_SIDE
    if us == BLACK:
        b.fullmove_number += 1
    b.checkers = attackers_to(b, king_square(b, them), b.occupied) & b.by_colour[us]

    # The en-passant square counts (in FEN and in the key) only when the capture is legal,
    # as in the FIDE definition of a repeated position.
    if double_push_ep != NO_SQUARE and (PAWN_ATTACKS[us][double_push_ep] & pieces_of(b, them, PAWN)):
        if any_legal_ep(b, double_push_ep):
            b.ep_square = double_push_ep
            key ^= ZOBRIST_EP_FILE[file_of(double_push_ep)]
    b.key = key


cdef void undo_move(Board* b) noexcept nogil:
    b.game_ply -= 1
    cdef UndoRecord* rec = &b.history[b.game_ply]
    cdef Move m = rec.move
    cdef int us = 1 - b.side_to_move
    cdef int from_sq = move_from(m), to_sq = move_to(m), kind = move_kind(m)
    cdef int king_to, rook_to

    if kind == MOVE_CASTLING:
        king_to = castled_king_square(us, to_sq > from_sq)
        rook_to = castled_rook_square(us, to_sq > from_sq)
        remove_piece(b, king_to)
        remove_piece(b, rook_to)
        put_piece(b, make_piece(us, KING), from_sq)
        put_piece(b, make_piece(us, ROOK), to_sq)
    else:
        if is_promotion(m):
            remove_piece(b, to_sq)
            put_piece(b, make_piece(us, PAWN), to_sq)
        move_piece(b, to_sq, from_sq)
        if rec.captured != NO_PIECE:
            if kind == MOVE_EN_PASSANT:
                put_piece(b, rec.captured, to_sq - 8 if us == WHITE else to_sq + 8)
            else:
                put_piece(b, rec.captured, to_sq)

    b.side_to_move = us
    if us == BLACK:
        b.fullmove_number -= 1
    b.key = rec.key
    b.checkers = rec.checkers
    b.castling = rec.castling
    b.ep_square = rec.ep_square
    b.halfmove_clock = rec.halfmove_clock
    b.plies_from_null = rec.plies_from_null


cdef void do_null_move(Board* b) noexcept nogil:
    """Pass the turn (for null-move pruning); never called while in check."""
    push_undo(b, MOVE_NULL)
    if b.ep_square != NO_SQUARE:
        b.key ^= ZOBRIST_EP_FILE[file_of(b.ep_square)]
        b.ep_square = NO_SQUARE
    b.key ^= ZOBRIST_SIDE
    b.side_to_move = 1 - b.side_to_move
    b.halfmove_clock += 1
    b.plies_from_null = 0
    b.checkers = 0


cdef void undo_null_move(Board* b) noexcept nogil:
    b.game_ply -= 1
    cdef UndoRecord* rec = &b.history[b.game_ply]
    b.side_to_move = 1 - b.side_to_move
    b.key = rec.key
    b.checkers = rec.checkers
    b.ep_square = rec.ep_square
    b.halfmove_clock = rec.halfmove_clock
    b.plies_from_null = rec.plies_from_null


cdef void drop_old_history(Board* b, int keep) noexcept nogil:
    """Forget all but the newest `keep` undo records (they can no longer be undone).

    Only the records since the last capture or pawn move matter for repetitions,
    and those are at most 100 (150 under the 75-move rule), so a long game loses nothing.
    """
    if b.game_ply <= keep:
        return
    memmove(&b.history[0], &b.history[b.game_ply - keep], keep * sizeof(UndoRecord))
    b.game_ply = keep


# ---------------------------------------------------------------- draws by rule

cdef bint is_draw_by_repetition(const Board* b, int ply_from_root) noexcept nogil:
    """Search rule: a repetition inside the search path is a draw; before the root it
    must be the third occurrence (the game could not be claimed drawn otherwise)."""
    cdef int horizon = b.halfmove_clock if b.halfmove_clock < b.plies_from_null else b.plies_from_null
    cdef int i = b.game_ply - 2, stop = b.game_ply - horizon, count = 0
    if stop < 0:
        stop = 0
    while i >= stop:
        if b.history[i].key == b.key:
            if i >= b.game_ply - ply_from_root:
                return True
            count += 1
            if count >= 2:
                return True
        i -= 2
    return False

cdef int repetition_count(const Board* b) noexcept nogil:
    """How often the current position has stood on the board in this game, now included."""
    cdef int horizon = b.halfmove_clock if b.halfmove_clock < b.plies_from_null else b.plies_from_null
    cdef int i = b.game_ply - 2, stop = b.game_ply - horizon, count = 1
    if stop < 0:
        stop = 0
    while i >= stop:
        if b.history[i].key == b.key:
            count += 1
        i -= 2
    return count

cdef bint side_has_insufficient_material(const Board* b, int colour) noexcept nogil:
    """No sequence of legal moves lets `colour` mate (the rule python-chess applies)."""
    cdef Bitboard ours = b.by_colour[colour], theirs = b.by_colour[1 - colour]
    cdef Bitboard bishops
    if ours & (b.by_type[PAWN] | b.by_type[ROOK] | b.by_type[QUEEN]):
        return False
    if ours & b.by_type[KNIGHT]:
        # A lone knight mates only with the help of enemy pawns, minors or rooks.
        return popcount(ours) <= 2 and not (theirs & ~b.by_type[KING] & ~b.by_type[QUEEN])
    if ours & b.by_type[BISHOP]:
        # Bishops all on one colour mate only against pawns, knights or a bishop of the other colour.
        bishops = b.by_type[BISHOP]
        return ((not (bishops & DARK_SQUARES) or not (bishops & ~DARK_SQUARES))
                and not b.by_type[PAWN] and not b.by_type[KNIGHT])
    return True

cdef bint is_insufficient_material(const Board* b) noexcept nogil:
    return side_has_insufficient_material(b, WHITE) and side_has_insufficient_material(b, BLACK)

cdef Bitboard compute_key(const Board* b) noexcept nogil:
    """The Zobrist key from scratch; do_move keeps it up to date incrementally."""
    cdef Bitboard key = 0
    cdef int sq
    for sq in range(64):
        if b.squares[sq] != NO_PIECE:
            key ^= ZOBRIST_PIECE[b.squares[sq]][sq]
    key ^= ZOBRIST_CASTLING[b.castling]
    if b.ep_square != NO_SQUARE:
        key ^= ZOBRIST_EP_FILE[file_of(b.ep_square)]
    if b.side_to_move == BLACK:
        key ^= ZOBRIST_SIDE
    return key


# ---------------------------------------------------------------- FEN

PIECE_LETTERS = "PNBRQKpnbrqk"
STARTING_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
# The largest half-move clock and move number a FEN may give: far above any game, and far below
# what the board's C ints hold.
MAX_FEN_COUNTER = 100000


cdef void add_castling_right(Board* b, int colour, int rook_sq) noexcept nogil:
    cdef int ksq = king_square(b, colour)
    cdef bint king_side = rook_sq > ksq
    cdef int index = 2 * colour + (0 if king_side else 1)
    cdef int right = 1 << index
    cdef int king_to = castled_king_square(colour, king_side)
    cdef int rook_to = castled_rook_square(colour, king_side)
    b.castling |= right
    b.castling_rook_square[index] = rook_sq
    b.castling_rights_mask[ksq] &= ~right
    b.castling_rights_mask[rook_sq] &= ~right
    b.castling_path[index] = ((BETWEEN[ksq][king_to] | BETWEEN[rook_sq][rook_to]
                               | square_bb(king_to) | square_bb(rook_to))
                              & ~(square_bb(ksq) | square_bb(rook_sq)))
    b.castling_king_path[index] = BETWEEN[ksq][king_to] | square_bb(king_to)


cdef int parse_castling(Board* b, str field) except -1:
    """KQkq (the outermost rook on that side, as X-FEN reads it) or Shredder file letters.

    A right whose king or rook is not on its home rank is dropped, not refused: GUIs
    send such FENs, and the right could never be used anyway.
    """
    cdef int colour, ksq, sq, rook_sq, step
    if field == "-":
        return 0
    for ch in field:
        if ch not in "KQkqABCDEFGHabcdefgh":
            raise ValueError(f"bad castling field {field!r}: unexpected {ch!r}")
    for ch in field:
        colour = WHITE if ch.isupper() else BLACK
        if not pieces_of(b, colour, KING):
            continue
        ksq = king_square(b, colour)
        if rank_of(ksq) != 7 * colour:
            continue
        rook_sq = -1
        if ch in "Kk" or ch in "Qq":
            step = 1 if ch in "Kk" else -1
            sq = ksq + step
            while 0 <= file_of(sq) < 8 and rank_of(sq) == 7 * colour and 0 <= sq < 64:
                if b.squares[sq] == make_piece(colour, ROOK):
                    rook_sq = sq
                if (step == 1 and file_of(sq) == 7) or (step == -1 and file_of(sq) == 0):
                    break
                sq += step
        else:
            sq = 56 * colour + ("abcdefgh".index(ch.lower()))
            if b.squares[sq] == make_piece(colour, ROOK) and sq != ksq:
                rook_sq = sq
        if rook_sq >= 0:
            add_castling_right(b, colour, rook_sq)
    return 0


cdef int set_fen(Board* b, str fen, bint chess960=False) except -1:
    """Set up a position from FEN, raising ValueError with the reason when it is malformed.

    The board is written only when the whole FEN is valid, so a bad FEN leaves the
    caller's position as it was.
    """
    cdef Board tmp
    cdef int sq, rank, file, colour, piece, ep, n, i
    cdef int counts[12]
    if not isinstance(fen, str):
        raise ValueError("FEN must be a string")
    fields = fen.split()
    if len(fields) < 4 or len(fields) > 6:
        raise ValueError(f"FEN needs 4 to 6 fields (placement, side, castling, en passant, "
                         f"half-move clock, move number); got {len(fields)}")
    memset(&tmp, 0, sizeof(Board) - sizeof(tmp.history))
    for sq in range(64):
        tmp.squares[sq] = NO_PIECE
        tmp.castling_rights_mask[sq] = 15
    tmp.ep_square = NO_SQUARE
    tmp.chess960 = chess960

    ranks = fields[0].split("/")
    if len(ranks) != 8:
        raise ValueError(f"FEN placement needs 8 ranks separated by '/'; got {len(ranks)}")
    for i in range(12):
        counts[i] = 0
    for i, rank_text in enumerate(ranks):
        rank = 7 - i
        file = 0
        for ch in rank_text:
            if ch in "12345678":
                file += ord(ch) - ord("0")
            elif ch in PIECE_LETTERS:
                if file > 7:
                    raise ValueError(f"FEN rank {rank + 1} ({rank_text!r}) has more than 8 squares")
                piece = PIECE_LETTERS.index(ch)
                put_piece(&tmp, piece, rank * 8 + file)
                counts[piece] += 1
                file += 1
            else:
                raise ValueError(f"bad piece letter {ch!r} in FEN rank {rank + 1} ({rank_text!r})")
        if file != 8:
            raise ValueError(f"FEN rank {rank + 1} ({rank_text!r}) covers {file} squares, not 8")

    for colour, name in ((WHITE, "white"), (BLACK, "black")):
        n = counts[make_piece(colour, KING)]
        if n != 1:
            raise ValueError(f"{name} must have exactly one king; the FEN gives {n}")
        # Extra pieces can only come from promotions, one per missing pawn.
        extra = (max(0, counts[make_piece(colour, QUEEN)] - 1) + max(0, counts[make_piece(colour, ROOK)] - 2)
                 + max(0, counts[make_piece(colour, BISHOP)] - 2) + max(0, counts[make_piece(colour, KNIGHT)] - 2))
        if counts[make_piece(colour, PAWN)] > 8 or counts[make_piece(colour, PAWN)] + extra > 8:
            raise ValueError(f"{name} has more pieces than promotions could give")
    if tmp.by_type[PAWN] & 0xFF000000000000FF:
        raise ValueError("a pawn stands on the first or last rank")

    if fields[1] not in ("w", "b"):
        raise ValueError(f"side to move must be 'w' or 'b', not {fields[1]!r}")
    tmp.side_to_move = WHITE if fields[1] == "w" else BLACK

    parse_castling(&tmp, fields[2])

    if fields[3] != "-":
        ep_text = fields[3]
        if len(ep_text) != 2 or ep_text[0] not in "abcdefgh" or ep_text[1] not in "12345678":
            raise ValueError(f"bad en-passant square {ep_text!r}")
        ep = "abcdefgh".index(ep_text[0]) + 8 * (int(ep_text[1]) - 1)
        # The pawn that just moved two squares stands in front of the square, which
        # it crossed, and the square it came from is empty.
        if tmp.side_to_move == WHITE:
            valid = (rank_of(ep) == 5 and tmp.squares[ep - 8] == make_piece(BLACK, PAWN)
                     and tmp.squares[ep] == NO_PIECE and tmp.squares[ep + 8] == NO_PIECE)
        else:
            valid = (rank_of(ep) == 2 and tmp.squares[ep + 8] == make_piece(WHITE, PAWN)
                     and tmp.squares[ep] == NO_PIECE and tmp.squares[ep - 8] == NO_PIECE)
        if not valid:
            raise ValueError(f"impossible en-passant square {ep_text!r}: no pawn can just have "
                             f"passed it with {'white' if tmp.side_to_move == WHITE else 'black'} to move")
        if any_legal_ep(&tmp, ep):
            tmp.ep_square = ep

    # Read as Python integers and checked before they meet the C ints: a counter of any length
    # is refused with this message, never an OverflowError.
    try:
        halfmove = int(fields[4]) if len(fields) > 4 else 0
        fullmove = int(fields[5]) if len(fields) > 5 else 1
    except ValueError:
        raise ValueError(f"half-move clock and move number must be whole numbers, not "
                         f"{' '.join(fields[4:])!r}") from None
    if not (0 <= halfmove <= MAX_FEN_COUNTER and 0 <= fullmove <= MAX_FEN_COUNTER):
        raise ValueError(f"half-move clock and move number must be between 0 and {MAX_FEN_COUNTER}, "
                         f"not {' '.join(fields[4:6])[:40]!r}")
    tmp.halfmove_clock = halfmove
    tmp.fullmove_number = fullmove if fullmove > 0 else 1

    if attackers_to(&tmp, king_square(&tmp, 1 - tmp.side_to_move), tmp.occupied) & tmp.by_colour[tmp.side_to_move]:
        raise ValueError("the side not to move is in check")
    tmp.checkers = (attackers_to(&tmp, king_square(&tmp, tmp.side_to_move), tmp.occupied)
                    & tmp.by_colour[1 - tmp.side_to_move])
    if popcount(tmp.checkers) > 2:
        raise ValueError("the side to move is in check from more than two pieces")
    tmp.plies_from_null = tmp.halfmove_clock
    tmp.game_ply = 0
    tmp.key = compute_key(&tmp)
    memmove(b, &tmp, sizeof(Board) - sizeof(tmp.history))
    return 0


cdef str get_fen(const Board* b):
    cdef int rank, file, empty, piece, index
    rows = []
    for rank in range(7, -1, -1):
        row = []
        empty = 0
        for file in range(8):
            piece = b.squares[rank * 8 + file]
            if piece == NO_PIECE:
                empty += 1
            else:
                if empty:
                    row.append(str(empty))
                    empty = 0
                row.append(PIECE_LETTERS[piece])
        if empty:
            row.append(str(empty))
        rows.append("".join(row))
    castling = ""
    for index in range(4):
        if b.castling & (1 << index):
            castling += castling_letter(b, index)
    ep = "-" if b.ep_square == NO_SQUARE else square_name(b.ep_square)
    return (f"{'/'.join(rows)} {'w' if b.side_to_move == WHITE else 'b'} {castling or '-'} {ep} "
            f"{b.halfmove_clock} {b.fullmove_number}")


cdef str castling_letter(const Board* b, int index):
    """X-FEN: K/Q/k/q when the right's rook is the outermost one on its side of the king,
    else the rook's file letter (Chess960), so that reading the FEN back gives the same right."""
    cdef int colour = index >> 1, rook_sq = b.castling_rook_square[index], f
    cdef bint king_side = (index & 1) == 0
    for f in (range(file_of(rook_sq) + 1, 8) if king_side else range(file_of(rook_sq))):
        if b.squares[56 * colour + f] == make_piece(colour, ROOK):
            letter = "abcdefgh"[file_of(rook_sq)]
            return letter.upper() if colour == WHITE else letter
    return "KQkq"[index]


def square_name(int square) -> str:
    return "abcdefgh"[square & 7] + "12345678"[square >> 3]


cdef str move_to_uci(const Board* b, Move m):
    """UCI text; castling is the king's two-square move unless the game is Chess960."""
    cdef int from_sq = move_from(m), to_sq = move_to(m), kind = move_kind(m)
    if m == MOVE_NONE or m == MOVE_NULL:
        return "0000"
    if kind == MOVE_CASTLING and not b.chess960:
        to_sq = (6 if to_sq > from_sq else 2) + (from_sq & 56)
    text = square_name(from_sq) + square_name(to_sq)
    if is_promotion(m):
        text += "nbrq"[kind - 1]
    return text
