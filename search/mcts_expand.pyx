"""MCTS expansion (see mcts_expand.pxd): a node's children in one block of the pool, ordered and
given their priors, and the searches that refresh the priors as the node's visits grow."""

from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t
from search.board.types cimport (
    Move, MoveList, MAX_MOVES, NO_PIECE, MOVE_EN_PASSANT, move_to, move_kind, is_promotion,
)
from search.board.board cimport Board
from search.board.movegen cimport generate_legal
from search.board.see cimport SEE_VALUE
from search.state cimport SearchState
from search.mcts_pool cimport (
    NodePool, NODE_NONE, PRIOR_ONE, STAGE_EXPANDED, init_node, pool_alloc, store_u8_release, store_u64,
)
from search.mcts_state cimport (
    SELECT_PUCT, REFRESH_FIRST_VISITS, REFRESH_STEP_SHIFT, REFRESH_FIRST_DEPTH,
)
from search.mcts_leaf cimport node_search
from search.mcts_priors cimport move_priors
from search.ordering cimport mvv_lva

cdef extern from "clock.h" nogil:
    void store_flag "kestrel_store_flag"(int* flag, int value)

cdef enum:
    ROOT_SCORE_OFFSET = 32768      # a packed root search score is stored as score + this (16 bits)


cdef inline int expansion_order(const Board* b, Move m) noexcept nogil:
    """Captures (most valuable victim first) and queen promotions are tried first:
    the children of a new node are visited in this order, so tactics show early."""
    cdef int score = 0
    if move_kind(m) == MOVE_EN_PASSANT or b.squares[move_to(m)] != NO_PIECE:
        score = 100000 + mvv_lva(b, m)
    if is_promotion(m):
        score += 50000 + SEE_VALUE[move_kind(m)]
    return score


cdef int sort_by_prior(MCTSState* s, MoveList* moves, double* priors) noexcept nogil:
    """PUCT: compute the priors of moves.moves[:count] and sort the moves by them, best first
    (stable), so that the first child tried is the likeliest and a PV of unvisited moves reads well."""
    cdef int i, j, count = moves.count
    cdef Move m
    cdef double prior
    move_priors(s.qs, moves.moves, count, s.prior_temperature, s.prior_weights, priors)
    for i in range(1, count):
        m = moves.moves[i]
        prior = priors[i]
        j = i - 1
        while j >= 0 and priors[j] < prior:
            moves.moves[j + 1] = moves.moves[j]
            priors[j + 1] = priors[j]
            j -= 1
        moves.moves[j + 1] = m
        priors[j + 1] = prior
    return count


cdef inline uint16_t quantized_prior(double prior) noexcept nogil:
    """A prior in 1/PRIOR_ONE, never 0: a move the prior rules out must stay reachable through FPU."""
    cdef uint32_t quantized = <uint32_t>(prior * PRIOR_ONE + 0.5)
    return <uint16_t>(1 if quantized < 1 else quantized)


cdef uint32_t expand(MCTSState* s, uint32_t node, const Move* allowed, int allowed_count) noexcept nogil:
    """Give `node` a child for every legal move (only those in `allowed` if it is not NULL),
    with its prior under PUCT (under UCT all priors are equal and the order is the old one).

    Returns the first child, or NODE_NONE when the pool cannot hold them (the tree
    then stops growing) or there is no move.  The caller owns the node's expansion (it
    moved its stage to STAGE_EXPANDING, or no other thread runs); on success the children
    are published with the node's stage, STAGE_EXPANDED, and on failure the caller resets it.
    """
    cdef Board* b = &s.qs.board
    cdef NodePool* p = s.pool
    cdef MoveList moves
    cdef double priors[MAX_MOVES]
    cdef int i, j, count = 0, key
    cdef Move m
    cdef uint32_t first
    generate_legal(b, &moves)
    for i in range(moves.count):
        m = moves.moves[i]
        if allowed != NULL:
            for j in range(allowed_count):
                if allowed[j] == m:
                    break
            else:
                continue
        # Insertion sort by expansion order, stable so that equal moves keep generator order.
        key = expansion_order(b, m)
        j = count - 1
        while j >= 0 and moves.scores[j] < key:
            moves.moves[j + 1] = moves.moves[j]
            moves.scores[j + 1] = moves.scores[j]
            j -= 1
        moves.moves[j + 1] = m
        moves.scores[j + 1] = key
        count += 1
    if count == 0:
        return NODE_NONE
    moves.count = count
    if s.selection == SELECT_PUCT:
        sort_by_prior(s, &moves, priors)
    first = pool_alloc(p, count)
    if first == NODE_NONE:
        store_flag(&s.shared.pool_full, 1)
        return NODE_NONE
    for i in range(count):
        init_node(&p.nodes[first + i], node, moves.moves[i])
        if s.selection == SELECT_PUCT:
            p.nodes[first + i].prior = quantized_prior(priors[i])
        else:
            p.nodes[first + i].prior = <uint16_t>(PRIOR_ONE // count)
    p.nodes[node].first_child = first
    p.nodes[node].child_count = <uint8_t>count
    # Release: a thread that reads STAGE_EXPANDED (acquire) sees the children written above.
    store_u8_release(&p.nodes[node].stage, STAGE_EXPANDED)
    return first


cdef int refresh_depth(uint32_t visits, int extra, int max_depth) noexcept nogil:
    """The plies of the search that refreshes a node's priors at `visits` visits, 0 when none
    does: REFRESH_FIRST_DEPTH + `extra` at REFRESH_FIRST_VISITS, one more each time the visits
    grow 2**REFRESH_STEP_SHIFT-fold after it, up to `max_depth`."""
    cdef uint32_t at = REFRESH_FIRST_VISITS
    cdef int depth = REFRESH_FIRST_DEPTH + extra
    if visits < at or (visits & (visits - 1)) != 0:
        return 0        # the cheap test that nearly every node fails: not a power of two
    while at < visits and depth < max_depth:
        at <<= REFRESH_STEP_SHIFT
        depth += 1
    return depth if at == visits else 0


cdef inline uint64_t pack_root_search(Move move, int depth, int score) noexcept nogil:
    """A root search's best move (bits 0-15), depth (32-39) and score (40-55, offset to be
    positive) in one word; never 0, as depth is at least 1."""
    return (<uint64_t>move | (<uint64_t>(depth & 0xFF) << 32)
            | (<uint64_t>((score + ROOT_SCORE_OFFSET) & 0xFFFF) << 40))


cdef Move root_search_move_of(uint64_t word) noexcept nogil:
    return <Move>(word & 0xFFFF)


cdef int root_search_depth_of(uint64_t word) noexcept nogil:
    return <int>((word >> 32) & 0xFF)


cdef int root_search_score_of(uint64_t word) noexcept nogil:
    return <int>((word >> 40) & 0xFFFF) - ROOT_SCORE_OFFSET


cdef void refresh_priors(MCTSState* s, uint32_t node, int ply, int depth) noexcept nogil:
    """New priors for the children of `node` (the board stands at it, `ply` moves below the
    root): a full-window alpha-beta search of `depth` plies leaves its best move and history
    in the table and stacks, and move_priors() reads them as for a new node.

    A move the first priors ruled out, a quiet one the features cannot see, can be the best
    there is: once the node has the visits to pay for a search, the search finds it and its
    prior rises.  With several threads, a node whose visits pass the threshold while others
    walk it may be refreshed twice or not at all: a wasted search, never a wrong tree.
    """
    cdef NodePool* p = s.pool
    cdef SearchState* qs = s.qs
    cdef Move moves[MAX_MOVES]
    cdef double priors[MAX_MOVES]
    cdef uint32_t first = p.nodes[node].first_child
    cdef int i, score, count = p.nodes[node].child_count
    if count < 2:
        return
    score = node_search(qs, depth, ply)
    if qs.stopped:
        return
    if ply == 0:
        # Its principal variation's first move, depth and score (none if it ended without one).
        store_u64(&s.shared.root_search,
                  pack_root_search(qs.pv_table[0][0], depth, score) if qs.pv_length[0] > 0 else 0)
    for i in range(count):
        moves[i] = p.nodes[first + i].move
    move_priors(qs, moves, count, s.prior_temperature, s.prior_weights, priors)
    for i in range(count):
        p.nodes[first + i].prior = quantized_prior(priors[i])
