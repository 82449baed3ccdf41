"""Static exchange evaluation by the swap-list method."""

from search.board.types cimport (
    Bitboard, Move, PAWN, BISHOP, ROOK, QUEEN, KING, NO_PIECE, WHITE,
    MOVE_CASTLING, MOVE_EN_PASSANT, move_from, move_to, move_kind, is_promotion, piece_type_of,
)
from search.board.bitboard cimport lsb, square_bb, rook_attacks, bishop_attacks
from search.board.board cimport Board, attackers_to

SEE_VALUE[:] = [100, 320, 330, 500, 900, 20000, 0]


cdef int see(const Board* b, Move m) noexcept nogil:
    cdef int from_sq = move_from(m), to_sq = move_to(m), kind = move_kind(m)
    cdef int gain[40]
    cdef int depth = 0, side, pt, sq, swap_value
    cdef Bitboard occupied = b.occupied, attackers, mine, candidates
    cdef Bitboard diagonal = b.by_type[BISHOP] | b.by_type[QUEEN]
    cdef Bitboard straight = b.by_type[ROOK] | b.by_type[QUEEN]
    if kind == MOVE_CASTLING:
        return 0
    if kind == MOVE_EN_PASSANT:
        gain[0] = SEE_VALUE[PAWN]
        occupied ^= square_bb(to_sq - 8 if b.side_to_move == WHITE else to_sq + 8)
    elif b.squares[to_sq] != NO_PIECE:
        gain[0] = SEE_VALUE[piece_type_of(b.squares[to_sq])]
    else:
        gain[0] = 0
    swap_value = SEE_VALUE[piece_type_of(b.squares[from_sq])]
    if is_promotion(m):
        gain[0] += SEE_VALUE[kind] - SEE_VALUE[PAWN]
        swap_value = SEE_VALUE[kind]
    occupied ^= square_bb(from_sq)
    attackers = attackers_to(b, to_sq, occupied) & occupied
    side = 1 - b.side_to_move
    while depth < 38:
        mine = attackers & b.by_colour[side]
        if not mine:
            break
        for pt in range(PAWN, KING + 1):
            candidates = mine & b.by_type[pt]
            if candidates:
                break
        sq = lsb(candidates)
        if pt == KING and (attackers & b.by_colour[1 - side]):
            break   # the king may not take a defended piece
        depth += 1
        gain[depth] = swap_value - gain[depth - 1]
        swap_value = SEE_VALUE[pt]
        occupied ^= square_bb(sq)
        # Sliders behind the piece that just captured join in.
        attackers |= (bishop_attacks(to_sq, occupied) & diagonal) | (rook_attacks(to_sq, occupied) & straight)
        attackers &= occupied
        side = 1 - side
    while depth > 0:
        if -gain[depth - 1] > gain[depth]:
            gain[depth - 1] = gain[depth - 1]
        else:
            gain[depth - 1] = -gain[depth]
        depth -= 1
    return gain[0]
