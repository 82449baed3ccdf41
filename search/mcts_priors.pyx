"""Move priors for PUCT from Kestrel's move-ordering knowledge (see mcts_priors.pxd)."""

from libc.math cimport exp
from search.board.types cimport (
    Move, MOVE_NONE, MOVE_PROMOTE_QUEEN, MOVE_EN_PASSANT, NO_PIECE, move_from, move_to, move_kind, is_promotion,
)
from search.board.board cimport Board, do_move, undo_move
from search.board.see cimport see
from search.tt cimport TTEntry, tt_probe

# The weights are hand-set, in logit units at temperature 1 (a difference of 1 is a factor
# e = 2.7 in the prior); "MCTS Prior Temperature" scales them all, and games decide it.
cdef double PRIOR_TT_MOVE = 3.0         # the searched leaf's best move: the strongest hint there is
cdef double PRIOR_CAPTURE = 1.0         # a capture that does not lose material...
cdef double PRIOR_PER_PAWN_WON = 0.4    # ...plus this per 100 cp its exchange gains (a free queen: +3.6)
cdef double PRIOR_PER_PAWN_LOST = 0.5   # a losing capture: minus this per 100 cp it loses
cdef double PRIOR_LOSS_FLOOR = -3.0     # (bounded: a bad capture may still be a sacrifice)
cdef double PRIOR_QUEEN_PROMOTION = 2.5
cdef double PRIOR_UNDER_PROMOTION = -3.0
cdef double PRIOR_CHECK = 1.0           # checks hide the mates and forks a quiet prior would miss
cdef double PRIOR_HISTORY = 1.0         # a quiet move's history, +-16384 at saturation, as +-1
cdef double HISTORY_SCALE = 16384.0


cdef double move_logit(SearchState* s, Move m, Move tt_move) noexcept nogil:
    cdef Board* b = &s.board
    cdef double logit = 0.0
    cdef int gain
    cdef bint capture = b.squares[move_to(m)] != NO_PIECE or move_kind(m) == MOVE_EN_PASSANT
    if m == tt_move:
        logit += PRIOR_TT_MOVE
    if is_promotion(m):
        logit += PRIOR_QUEEN_PROMOTION if move_kind(m) == MOVE_PROMOTE_QUEEN else PRIOR_UNDER_PROMOTION
    if capture:
        gain = see(b, m)
        if gain >= 0:
            logit += PRIOR_CAPTURE + PRIOR_PER_PAWN_WON * gain / 100.0
        else:
            logit += max(PRIOR_LOSS_FLOOR, PRIOR_PER_PAWN_LOST * gain / 100.0)
    elif not is_promotion(m):
        logit += PRIOR_HISTORY * s.history[b.side_to_move][move_from(m)][move_to(m)] / HISTORY_SCALE
    do_move(b, m)
    if b.checkers:
        logit += PRIOR_CHECK
    undo_move(b)
    return logit


cdef void move_priors(SearchState* s, const Move* moves, int count, double temperature,
                      double* priors) noexcept nogil:
    cdef TTEntry entry
    cdef Move tt_move = MOVE_NONE
    cdef int i
    cdef double top = -1e300, total = 0.0
    if count <= 0:
        return
    if temperature < 1e-3:
        temperature = 1e-3
    if tt_probe(s.tt, s.board.key, &entry):
        tt_move = entry.move
    for i in range(count):
        priors[i] = move_logit(s, moves[i], tt_move) / temperature
        if priors[i] > top:
            top = priors[i]
    # Softmax, shifted by the largest logit so that exp never overflows.
    for i in range(count):
        priors[i] = exp(priors[i] - top)
        total += priors[i]
    for i in range(count):
        priors[i] /= total
