"""Scores for move ordering and the history/killer updates that feed them."""

from search.board.types cimport (
    Move, MoveList, NO_PIECE, MOVE_EN_PASSANT, MOVE_PROMOTE_QUEEN, MOVE_NULL,
    move_from, move_to, move_kind, is_promotion,
)
from search.board.board cimport Board
from search.board.see cimport see

cdef enum:
    HASH_MOVE_SCORE = 10000000
    GOOD_CAPTURE_SCORE = 4000000
    KILLER_SCORE = 3000000
    COUNTER_SCORE = 2900000
    BAD_CAPTURE_SCORE = -4000000
    HISTORY_MAX = 16384


cdef bint is_capture(SearchState* s, Move m) noexcept nogil:
    return s.board.squares[move_to(m)] != NO_PIECE or move_kind(m) == MOVE_EN_PASSANT


cdef void score_moves(SearchState* s, MoveList* moves, Move hash_move, int ply) noexcept nogil:
    cdef const Board* b = &s.board
    cdef int i, us = b.side_to_move
    cdef Move m, previous = s.move_stack[ply - 1] if ply > 0 else 0
    cdef Move counter = 0
    if previous != 0 and previous != MOVE_NULL:
        counter = s.counter_moves[b.squares[move_to(previous)] % 12][move_to(previous)]
    for i in range(moves.count):
        m = moves.moves[i]
        if m == hash_move:
            moves.scores[i] = HASH_MOVE_SCORE
        elif is_promotion(m):
            if move_kind(m) == MOVE_PROMOTE_QUEEN:
                moves.scores[i] = GOOD_CAPTURE_SCORE + 9000 + (mvv_lva(b, m) if is_capture(s, m) else 0)
            else:
                moves.scores[i] = BAD_CAPTURE_SCORE - 100000 + move_kind(m)   # under-promotions last
        elif is_capture(s, m):
            if see(b, m) >= 0:
                moves.scores[i] = GOOD_CAPTURE_SCORE + mvv_lva(b, m)
            else:
                moves.scores[i] = BAD_CAPTURE_SCORE + mvv_lva(b, m)
        elif m == s.killers[ply][0]:
            moves.scores[i] = KILLER_SCORE + 1
        elif m == s.killers[ply][1]:
            moves.scores[i] = KILLER_SCORE
        elif m == counter:
            moves.scores[i] = COUNTER_SCORE
        else:
            moves.scores[i] = s.history[us][move_from(m)][move_to(m)]


cdef void score_captures(SearchState* s, MoveList* moves, Move hash_move) noexcept nogil:
    cdef int i
    cdef Move m
    for i in range(moves.count):
        m = moves.moves[i]
        if m == hash_move:
            moves.scores[i] = HASH_MOVE_SCORE
        elif is_capture(s, m):
            moves.scores[i] = mvv_lva(&s.board, m) + (9000 if is_promotion(m) else 0)
        elif is_promotion(m):
            moves.scores[i] = 8000 + move_kind(m)
        else:
            moves.scores[i] = s.history[s.board.side_to_move][move_from(m)][move_to(m)] - 100000


cdef Move pick_next(MoveList* moves, int index) noexcept nogil:
    cdef int best = index, i, score
    cdef Move m
    for i in range(index + 1, moves.count):
        if moves.scores[i] > moves.scores[best]:
            best = i
    if best != index:
        m = moves.moves[index]
        moves.moves[index] = moves.moves[best]
        moves.moves[best] = m
        score = moves.scores[index]
        moves.scores[index] = moves.scores[best]
        moves.scores[best] = score
    return moves.moves[index]


cdef inline void history_update(int* entry, int bonus) noexcept nogil:
    # Gravity: entries saturate at +-HISTORY_MAX, so old knowledge fades.
    entry[0] += bonus - entry[0] * (bonus if bonus > 0 else -bonus) // HISTORY_MAX


cdef void update_quiet_stats(SearchState* s, Move best, Move* quiets_tried, int quiet_count,
                             int depth, int ply) noexcept nogil:
    """A quiet move caused a cutoff: reward it, punish the quiet moves tried before it."""
    cdef int us = s.board.side_to_move, i
    cdef int bonus = depth * depth if depth < 16 else 256
    cdef Move previous
    if s.killers[ply][0] != best:
        s.killers[ply][1] = s.killers[ply][0]
        s.killers[ply][0] = best
    history_update(&s.history[us][move_from(best)][move_to(best)], bonus * 32)
    for i in range(quiet_count):
        if quiets_tried[i] != best:
            history_update(&s.history[us][move_from(quiets_tried[i])][move_to(quiets_tried[i])], -bonus * 32)
    if ply > 0:
        previous = s.move_stack[ply - 1]
        if previous != 0 and previous != MOVE_NULL:
            s.counter_moves[s.board.squares[move_to(previous)] % 12][move_to(previous)] = best
