"""Legal move generation on the bitboard position.

One generator serves both full and noisy (captures and promotions) lists: the
difference is only which target squares are allowed.  Legality is built in:
the king never steps onto an attacked square, pinned pieces move only along their
pin, and in check every move must capture the checker or block its line.
"""

from search.board.types cimport (
    Bitboard, Move, MoveList, WHITE, PAWN, KNIGHT, BISHOP, ROOK, QUEEN,
    NO_SQUARE, MOVE_NORMAL, MOVE_PROMOTE_KNIGHT, MOVE_PROMOTE_QUEEN, MOVE_EN_PASSANT,
    MOVE_CASTLING, MOVE_NONE, make_move, rank_of,
)
from search.board.bitboard cimport (
    lsb, square_bb, pop_lsb, more_than_one, rook_attacks, bishop_attacks,
    KNIGHT_ATTACKS, KING_ATTACKS, PAWN_ATTACKS, BETWEEN, LINE,
)
from search.board.board cimport (
    Board, pieces_of, king_square, is_attacked_by, pinned_pieces, ep_capture_is_legal,
)

cdef Bitboard ALL_SQUARES = 0xFFFFFFFFFFFFFFFFULL


cdef inline void add_move(MoveList* moves, Move m) noexcept nogil:
    moves.moves[moves.count] = m
    moves.count += 1

cdef inline void add_promotions(MoveList* moves, int from_sq, int to_sq) noexcept nogil:
    cdef int kind
    for kind in range(MOVE_PROMOTE_QUEEN, MOVE_PROMOTE_KNIGHT - 1, -1):
        add_move(moves, make_move(from_sq, to_sq, kind))


cdef void generate_pawn_moves(const Board* b, MoveList* moves, int from_sq, Bitboard allowed,
                              bint noisy_only) noexcept nogil:
    """Pushes, captures and promotions of one pawn onto `allowed` squares."""
    cdef int us = b.side_to_move
    cdef int step = 8 if us == WHITE else -8
    cdef int to_sq = from_sq + step
    cdef int last_rank = 7 if us == WHITE else 0
    cdef int start_rank = 1 if us == WHITE else 6
    cdef Bitboard captures
    cdef bint promotes = rank_of(to_sq) == last_rank
    if not (b.occupied & square_bb(to_sq)):
        if allowed & square_bb(to_sq):
            if promotes:
                add_promotions(moves, from_sq, to_sq)
            elif not noisy_only:
                add_move(moves, make_move(from_sq, to_sq, MOVE_NORMAL))
        if (not noisy_only and rank_of(from_sq) == start_rank
                and not (b.occupied & square_bb(to_sq + step)) and (allowed & square_bb(to_sq + step))):
            add_move(moves, make_move(from_sq, to_sq + step, MOVE_NORMAL))
    captures = PAWN_ATTACKS[us][from_sq] & b.by_colour[1 - us] & allowed
    while captures:
        to_sq = pop_lsb(&captures)
        if promotes:
            add_promotions(moves, from_sq, to_sq)
        else:
            add_move(moves, make_move(from_sq, to_sq, MOVE_NORMAL))
    if b.ep_square != NO_SQUARE and (PAWN_ATTACKS[us][from_sq] & square_bb(b.ep_square)):
        # Played out on the board instead of masked: it can uncover the king along a rank.
        if ep_capture_is_legal(b, from_sq, b.ep_square):
            add_move(moves, make_move(from_sq, b.ep_square, MOVE_EN_PASSANT))


cdef void generate_castling(const Board* b, MoveList* moves) noexcept nogil:
    cdef int us = b.side_to_move, index, rook_sq
    cdef int ksq = king_square(b, us)
    cdef Bitboard path, occupied
    for index in range(2 * us, 2 * us + 2):
        if not (b.castling & (1 << index)):
            continue
        rook_sq = b.castling_rook_square[index]
        if b.occupied & b.castling_path[index]:
            continue
        # Without king and rook on the board, as in Chess960 either may shield the path.
        occupied = b.occupied ^ square_bb(ksq) ^ square_bb(rook_sq)
        path = b.castling_king_path[index]
        while path:
            if is_attacked_by(b, pop_lsb(&path), 1 - us, occupied):
                break
        else:
            add_move(moves, make_move(ksq, rook_sq, MOVE_CASTLING))


cdef int generate(const Board* b, MoveList* moves, bint noisy_only) noexcept nogil:
    cdef int us = b.side_to_move, them = 1 - b.side_to_move
    cdef Bitboard own = b.by_colour[us], enemy = b.by_colour[them]
    cdef int ksq = king_square(b, us)
    cdef Bitboard checkers = b.checkers
    cdef Bitboard targets, attacks, pieces, pinned, check_mask, pawn_allowed
    cdef Bitboard occupied_without_king = b.occupied ^ square_bb(ksq)
    cdef int from_sq, to_sq
    moves.count = 0

    # King: in check, the noisy list still needs every evasion.
    targets = KING_ATTACKS[ksq] & ~own
    if noisy_only and not checkers:
        targets &= enemy
    while targets:
        to_sq = pop_lsb(&targets)
        if not is_attacked_by(b, to_sq, them, occupied_without_king):
            add_move(moves, make_move(ksq, to_sq, MOVE_NORMAL))
    if more_than_one(checkers):
        return moves.count      # double check: only the king may move

    if checkers:
        check_mask = BETWEEN[ksq][lsb(checkers)] | checkers
        noisy_only = False
    else:
        check_mask = ALL_SQUARES
        if not noisy_only:
            generate_castling(b, moves)
    pinned = pinned_pieces(b, us)
    targets = ~own & check_mask
    if noisy_only:
        targets &= enemy

    pieces = pieces_of(b, us, KNIGHT) & ~pinned     # a pinned knight can never move
    while pieces:
        from_sq = pop_lsb(&pieces)
        attacks = KNIGHT_ATTACKS[from_sq] & targets
        while attacks:
            add_move(moves, make_move(from_sq, pop_lsb(&attacks), MOVE_NORMAL))

    pieces = own & (b.by_type[BISHOP] | b.by_type[QUEEN])
    while pieces:
        from_sq = pop_lsb(&pieces)
        attacks = bishop_attacks(from_sq, b.occupied) & targets
        if pinned & square_bb(from_sq):
            attacks &= LINE[ksq][from_sq]
        while attacks:
            add_move(moves, make_move(from_sq, pop_lsb(&attacks), MOVE_NORMAL))

    pieces = own & (b.by_type[ROOK] | b.by_type[QUEEN])
    while pieces:
        from_sq = pop_lsb(&pieces)
        attacks = rook_attacks(from_sq, b.occupied) & targets
        if pinned & square_bb(from_sq):
            attacks &= LINE[ksq][from_sq]
        while attacks:
            add_move(moves, make_move(from_sq, pop_lsb(&attacks), MOVE_NORMAL))

    pieces = pieces_of(b, us, PAWN)
    while pieces:
        from_sq = pop_lsb(&pieces)
        pawn_allowed = check_mask
        if pinned & square_bb(from_sq):
            pawn_allowed &= LINE[ksq][from_sq]
        generate_pawn_moves(b, moves, from_sq, pawn_allowed, noisy_only)
    return moves.count


cdef int generate_legal(const Board* b, MoveList* moves) noexcept nogil:
    return generate(b, moves, False)

cdef int generate_noisy(const Board* b, MoveList* moves) noexcept nogil:
    return generate(b, moves, True)

cdef bint has_legal_move(const Board* b) noexcept nogil:
    cdef MoveList moves
    return generate(b, &moves, False) > 0

cdef bint is_legal_move(const Board* b, Move m) noexcept nogil:
    """Whether `m` is legal here (for hash and killer moves, which may come from elsewhere)."""
    cdef MoveList moves
    cdef int i
    if m == MOVE_NONE:
        return False
    generate(b, &moves, False)
    for i in range(moves.count):
        if moves.moves[i] == m:
            return True
    return False


cdef inline int square_from_text(str text, int offset):
    cdef int file = <int>ord(text[offset]) - 97     # 'a'
    cdef int rank = <int>ord(text[offset + 1]) - 49  # '1'
    if file < 0 or file > 7 or rank < 0 or rank > 7:
        return -1
    return file + 8 * rank


cdef bint is_uci_move_text(str text):
    """Whether `text` has the form of a UCI move (e2e4, e7e8q), legal or not."""
    if len(text) not in (4, 5) or square_from_text(text, 0) < 0 or square_from_text(text, 2) < 0:
        return False
    return len(text) == 4 or text[4] in "nbrq"


cdef Move parse_uci_move(const Board* b, str text):
    """Match UCI text against the legal moves, by squares (no strings are built, as
    `position ... moves` replays whole games).  Castling is accepted as the king's
    move and as king-takes-rook, in standard chess and in Chess960."""
    cdef MoveList moves
    cdef int i, from_sq, to_sq, promotion = 0, kind, king_to
    cdef Move m
    text = text.strip()
    if not is_uci_move_text(text):
        return MOVE_NONE
    from_sq = square_from_text(text, 0)
    to_sq = square_from_text(text, 2)
    if len(text) == 5:
        promotion = "nbrq".index(text[4]) + MOVE_PROMOTE_KNIGHT
    generate(b, &moves, False)
    for i in range(moves.count):
        m = moves.moves[i]
        if (m & 63) != from_sq:
            continue
        kind = m >> 12
        if kind == MOVE_CASTLING:
            king_to = (6 if ((m >> 6) & 63) > from_sq else 2) + (from_sq & 56)
            if promotion == 0 and (to_sq == ((m >> 6) & 63) or to_sq == king_to):
                return m
        elif ((m >> 6) & 63) == to_sq:
            if (kind if MOVE_PROMOTE_KNIGHT <= kind <= MOVE_PROMOTE_QUEEN else 0) == promotion:
                return m
    return MOVE_NONE
