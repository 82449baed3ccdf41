"""Move priors for PUCT from Kestrel's move-ordering knowledge (see mcts_priors.pxd)."""

from libc.math cimport exp
from search.board.types cimport (
    Bitboard, Move, MOVE_NONE, MOVE_PROMOTE_QUEEN, MOVE_EN_PASSANT, MOVE_CASTLING, NO_PIECE, PAWN, KING,
    move_from, move_to, move_kind, is_promotion, piece_type_of,
)
from search.board.bitboard cimport pop_lsb, popcount, square_bb, attacks_of, PAWN_ATTACKS
from search.board.board cimport Board, do_move, undo_move, attackers_to
from search.board.see cimport see, SEE_VALUE
from search.tt cimport TTEntry, tt_probe
from eval.evaluate cimport psqt_move_gain

cdef double HISTORY_SCALE = 16384.0     # the history's saturation
cdef double WORST_EXCHANGE = -6.0       # exchange losses count down to this (a sacrifice stays possible)

# The weights, in logit units at temperature 1 (a difference of 1 is a factor e = 2.7 in the
# prior); "MCTS Prior Temperature" divides them all, and games decide it.
#
# Set by hand: the searched leaf's best move is the strongest hint there is,
# a capture that does not lose gets +1 and 0.4 per pawn it wins (a free queen: +4.6), a losing
# one 0.5 per pawn lost (at most -3), checks +1 (they hide the mates and forks a quiet prior
# would miss), a quiet move's history +-1.  Castling was read as a capture that does not lose
# (the king takes its own rook in the encoding), so it got +1.  The other features are not used.
HAND_PRIOR_WEIGHTS[:] = [
    3.0,    # FEATURE_TT_MOVE
    1.0,    # FEATURE_CAPTURE
    0.4,    # FEATURE_CAPTURE_GAIN
    0.5,    # FEATURE_CAPTURE_LOSS
    0.0,    # FEATURE_QUIET_LOSS
    2.5,    # FEATURE_QUEEN_PROMOTION
    -3.0,   # FEATURE_UNDER_PROMOTION
    1.0,    # FEATURE_CHECK
    1.0,    # FEATURE_HISTORY
    0.0,    # FEATURE_ESCAPE
    0.0,    # FEATURE_PSQT
    0.0,    # FEATURE_PAWN_THREAT
    1.0,    # FEATURE_CASTLING
    0.0,    # FEATURE_RECAPTURE
    0.0,    # FEATURE_PIECE_THREAT
    0.0,    # FEATURE_IGNORED_THREAT
]

# Fitted by `python -m tools.policy_fit` (docs/mcts.md, "Fitted priors"): the weights under which
# the softmax best predicts the move of an alpha-beta search, the table's move being that of a
# shallower search: 8,000 positions of MCTS games (half one random move on), labels from
# depth-8 searches, the table's move from depth 2.  FEATURE_HISTORY cannot be fitted outside a
# search and keeps its hand weight; the last three features weigh nothing.
FITTED_PRIOR_WEIGHTS[:] = [
    1.99,   # FEATURE_TT_MOVE
    1.58,   # FEATURE_CAPTURE
    0.42,   # FEATURE_CAPTURE_GAIN
    0.48,   # FEATURE_CAPTURE_LOSS
    0.81,   # FEATURE_QUIET_LOSS: a hung knight -2.6
    3.20,   # FEATURE_QUEEN_PROMOTION
    -0.11,  # FEATURE_UNDER_PROMOTION (rare in the data: barely fitted)
    1.50,   # FEATURE_CHECK
    1.00,   # FEATURE_HISTORY (hand-set)
    0.25,   # FEATURE_ESCAPE: a knight that escapes +0.8
    1.86,   # FEATURE_PSQT
    0.53,   # FEATURE_PAWN_THREAT
    1.25,   # FEATURE_CASTLING
    0.0,    # FEATURE_RECAPTURE
    0.0,    # FEATURE_PIECE_THREAT
    0.0,    # FEATURE_IGNORED_THREAT
]


cdef const double* prior_weight_table(bint fitted) noexcept nogil:
    if fitted:
        return &FITTED_PRIOR_WEIGHTS[0]
    return &HAND_PRIOR_WEIGHTS[0]


cdef Move table_move(SearchState* s) noexcept nogil:
    cdef TTEntry entry
    if tt_probe(s.tt, s.board.key, &entry):
        return entry.move
    return MOVE_NONE


cdef int threat_value(Board* b, int sq, int colour) noexcept nogil:
    cdef Bitboard attackers = attackers_to(b, sq, b.occupied), enemy = attackers & b.by_colour[1 - colour]
    cdef int pt, attacker_type
    if not enemy:
        return 0
    pt = piece_type_of(b.squares[sq])
    if not (attackers & b.by_colour[colour]):
        return SEE_VALUE[pt]       # attacked and not defended
    for attacker_type in range(PAWN, pt):
        if enemy & b.by_type[attacker_type]:
            return SEE_VALUE[pt] - SEE_VALUE[attacker_type]     # a lesser piece attacks it
    return 0


cdef Bitboard threatened_pieces(SearchState* s) noexcept nogil:
    cdef Board* b = &s.board
    cdef int us = b.side_to_move, sq
    cdef Bitboard pieces = b.by_colour[us] & ~b.by_type[KING], result = 0
    while pieces:
        sq = pop_lsb(&pieces)
        if threat_value(b, sq, us) > 0:
            result |= square_bb(sq)
    return result


cdef int ignored_threat(Board* b, Bitboard still_threatened, int us) noexcept nogil:
    """The greatest threat_value() among `still_threatened` (pieces of `us`) after a move was made."""
    cdef int sq, value, worst = 0
    while still_threatened:
        sq = pop_lsb(&still_threatened)
        if b.squares[sq] == NO_PIECE or piece_type_of(b.squares[sq]) == KING:
            continue        # castling moved the rook away (the mover itself is never passed)
        value = threat_value(b, sq, us)
        if value > worst:
            worst = value
    return worst


cdef double greater_targets(Board* b, Move m, int mover) noexcept nogil:
    """How many enemy pieces worth more than the mover (not the king) it attacks after `m`, at most 2."""
    cdef int to_sq = move_to(m), them = 1 - b.side_to_move, count
    cdef Bitboard occupied = (b.occupied & ~square_bb(move_from(m))) | square_bb(to_sq), greater = 0
    cdef int pt
    for pt in range(mover + 1, KING):
        greater |= b.by_type[pt]
    greater &= b.by_colour[them]
    if not greater:
        return 0.0
    count = popcount(attacks_of(mover, b.side_to_move, to_sq, occupied) & greater)
    return <double>(count if count < 2 else 2)


cdef inline bint wanted(const double* weights, int feature) noexcept nogil:
    """Whether a feature must be computed: all are without a table, else those it weighs."""
    return weights == NULL or weights[feature] != 0.0


cdef void move_features(SearchState* s, Move m, Move tt_move, Bitboard threatened,
                        const double* weights, double* features) noexcept nogil:
    cdef Board* b = &s.board
    cdef int i, exchange, from_sq = move_from(m), to_sq = move_to(m), kind = move_kind(m)
    cdef int us = b.side_to_move, mover = piece_type_of(b.squares[from_sq])
    cdef bint capture = b.squares[to_sq] != NO_PIECE or kind == MOVE_EN_PASSANT
    cdef Bitboard targets
    for i in range(PRIOR_FEATURE_COUNT):
        features[i] = 0.0
    if m == tt_move:
        features[FEATURE_TT_MOVE] = 1.0
    if kind == MOVE_CASTLING:
        # The king takes its own rook in the encoding: not a capture, no exchange.
        features[FEATURE_CASTLING] = 1.0
        if wanted(weights, FEATURE_PSQT):
            features[FEATURE_PSQT] = psqt_move_gain(b, m) / 100.0
    else:
        # A quiet move's exchange is only needed by the features that weigh it (the hand-set
        # table weighs none of them, and an expansion costs what it did before them).
        if capture or wanted(weights, FEATURE_QUIET_LOSS) or wanted(weights, FEATURE_ESCAPE) \
                or wanted(weights, FEATURE_PAWN_THREAT):
            exchange = see(b, m)
        else:
            exchange = 0
        if capture:
            if exchange >= 0:
                features[FEATURE_CAPTURE] = 1.0
                features[FEATURE_CAPTURE_GAIN] = exchange / 100.0
            else:
                features[FEATURE_CAPTURE_LOSS] = max(WORST_EXCHANGE, exchange / 100.0)
        elif exchange < 0:
            features[FEATURE_QUIET_LOSS] = max(WORST_EXCHANGE, exchange / 100.0)
        if is_promotion(m):
            if kind == MOVE_PROMOTE_QUEEN:
                features[FEATURE_QUEEN_PROMOTION] = 1.0
            else:
                features[FEATURE_UNDER_PROMOTION] = 1.0
        elif not capture:
            features[FEATURE_HISTORY] = s.history[us][from_sq][to_sq] / HISTORY_SCALE
        if exchange >= 0 and (threatened & square_bb(from_sq)):
            features[FEATURE_ESCAPE] = SEE_VALUE[mover] / 100.0
        if mover == PAWN and not capture and not is_promotion(m) and exchange >= 0:
            targets = b.by_colour[1 - us] & ~(b.by_type[PAWN] | b.by_type[KING])
            if PAWN_ATTACKS[us][to_sq] & targets:
                features[FEATURE_PAWN_THREAT] = 1.0
        if capture and b.game_ply > 0 and wanted(weights, FEATURE_RECAPTURE):
            if b.history[b.game_ply - 1].captured != NO_PIECE and move_to(b.history[b.game_ply - 1].move) == to_sq:
                features[FEATURE_RECAPTURE] = 1.0
        if mover != PAWN and mover != KING and exchange >= 0 and wanted(weights, FEATURE_PIECE_THREAT):
            features[FEATURE_PIECE_THREAT] = greater_targets(b, m, mover)
        if wanted(weights, FEATURE_PSQT):
            features[FEATURE_PSQT] = psqt_move_gain(b, m) / 100.0
    do_move(b, m)
    if b.checkers:
        features[FEATURE_CHECK] = 1.0
    # The other threatened pieces: does the move defend them, block or take the attacker?
    if (threatened & ~square_bb(from_sq)) and wanted(weights, FEATURE_IGNORED_THREAT):
        features[FEATURE_IGNORED_THREAT] = -ignored_threat(b, threatened & ~square_bb(from_sq), us) / 100.0
    undo_move(b)


cdef void move_priors(SearchState* s, const Move* moves, int count, double temperature,
                      const double* weights, double* priors) noexcept nogil:
    cdef Move tt_move
    cdef Bitboard threatened
    cdef double features[PRIOR_FEATURE_COUNT]
    cdef int i, k
    cdef double logit, top = -1e300, total = 0.0
    if count <= 0:
        return
    if temperature < 1e-3:
        temperature = 1e-3
    tt_move = table_move(s)
    threatened = threatened_pieces(s) if wanted(weights, FEATURE_ESCAPE) or wanted(weights, FEATURE_IGNORED_THREAT) \
        else 0
    for i in range(count):
        move_features(s, moves[i], tt_move, threatened, weights, features)
        logit = 0.0
        for k in range(PRIOR_FEATURE_COUNT):
            logit += weights[k] * features[k]
        priors[i] = logit / temperature
        if priors[i] > top:
            top = priors[i]
    # Softmax, shifted by the largest logit so that exp never overflows.
    for i in range(count):
        priors[i] = exp(priors[i] - top)
        total += priors[i]
    for i in range(count):
        priors[i] /= total
