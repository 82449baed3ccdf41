"""MCTS selection (see mcts_select.pxd): UCB1 and PUCT over a node's children, and the root
child the search plays.

Other threads change the statistics while a walk reads them, so each is read once, atomically.
"""

from libc.math cimport log, sqrt
from libc.stdint cimport uint32_t
from search.mcts_pool cimport (
    Node, NodePool, NODE_NONE, PROVEN_UNKNOWN, PROVEN_LOSS, PRIOR_ONE,
    proven_of, result_value, exact_value, load_u32, load_f64,
)


cdef double ucb_score(double log_parent_visits, uint32_t visits, double value_sum,
                      double c) noexcept nogil:
    """UCB1: the mean result plus c * sqrt(ln N / n); an unvisited child comes first."""
    if visits == 0:
        return 1e300
    return value_sum / visits + c * sqrt(log_parent_visits / visits)


cdef uint32_t select_child(const NodePool* p, uint32_t node, double c) noexcept nogil:
    """The child with the highest UCB1 score; proven losses are never chosen again.

    A proven draw or win can still be chosen: it is not explored, its exact value is
    backed up, so that its visits show what it is worth next to the other moves.
    """
    cdef const Node* n = &p.nodes[node]
    cdef const Node* child
    cdef uint32_t parent_visits = load_u32(&n.visits), visits
    cdef double log_n = log(<double>parent_visits) if parent_visits > 1 else 0.0
    cdef double score, best_score = -1e308, value_sum
    cdef uint32_t i, index, best = NODE_NONE
    cdef int proven
    for i in range(n.child_count):
        index = n.first_child + i
        child = &p.nodes[index]
        proven = proven_of(child)
        if proven == PROVEN_LOSS:
            continue
        # Each statistic is read once: other threads change them meanwhile.
        visits = load_u32(&child.visits)
        if proven != PROVEN_UNKNOWN:
            value_sum = result_value(proven) * visits
        else:
            value_sum = load_f64(&child.value_sum)
        score = ucb_score(log_n, visits, value_sum, c)
        if score > best_score:
            best_score = score
            best = index
    return best


cdef uint32_t select_child_puct(const NodePool* p, uint32_t node, double c_puct, double fpu_reduction) noexcept nogil:
    """The child with the highest PUCT score (AlphaZero's rule: the value plus
    c * P * sqrt(N) / (1 + n)); proven losses are never chosen again.

    An unvisited child is valued at the parent's mean for the side to move, less
    `fpu_reduction` (first-play urgency): it is tried once its prior's bonus outweighs
    that doubt, so a node need not try its thirty quiet moves before a second look at
    the capture that wins.
    """
    cdef const Node* n = &p.nodes[node]
    cdef const Node* child
    cdef uint32_t parent_visits = load_u32(&n.visits), visits
    cdef double parent_sum = load_f64(&n.value_sum)
    cdef double sqrt_n = sqrt(<double>parent_visits)
    # PUCT's c * P * sqrt(N) / (1 + n) with the node's common factors taken out of the loop:
    # the priors are stored in 1/PRIOR_ONE.  This loop is the search's hottest, and divisions
    # are most of its cost.
    cdef double exploration_scale = c_puct * sqrt_n / PRIOR_ONE
    # The parent's statistics are for the player who moved into it, the other side.  Other
    # threads' virtual losses count in its visits: a busy parent's unvisited moves look better.
    cdef double fpu = (1.0 - parent_sum / parent_visits if parent_visits > 0 else 0.5) - fpu_reduction
    cdef double score, best_score = -1e308, n_child
    cdef uint32_t i, index, best = NODE_NONE
    cdef int proven
    for i in range(n.child_count):
        index = n.first_child + i
        child = &p.nodes[index]
        proven = proven_of(child)
        if proven == PROVEN_LOSS:
            continue
        # Each statistic is read once: other threads change them meanwhile.
        visits = load_u32(&child.visits)
        if proven != PROVEN_UNKNOWN:
            score = result_value(proven) + exploration_scale * child.prior / (1.0 + visits)
        elif visits == 0:
            score = fpu + exploration_scale * child.prior
        else:
            # The mean plus the bonus over one common denominator: one division, not two.
            n_child = <double>visits
            score = (load_f64(&child.value_sum) * (n_child + 1.0) + exploration_scale * child.prior * n_child) \
                / (n_child * (n_child + 1.0))
        if score > best_score:
            best_score = score
            best = index
    return best


cdef inline int child_rank(const Node* c) noexcept nogil:
    """3 for a proven win, 1 for a proven loss, 2 for the rest (open or drawn)."""
    return <int>(1.0 + 2.0 * exact_value(c))


cdef inline bint better_child(const Node* a, const Node* b) noexcept nogil:
    """Whether `a` is the better move to play: a proven win (the quickest), else the most
    visited move not proven lost, else the loss that takes longest."""
    cdef int ra = child_rank(a), rb = child_rank(b)
    cdef uint32_t va, vb
    if ra != rb:
        return ra > rb
    if ra == 3:
        return a.mate_plies < b.mate_plies
    if ra == 1:
        return a.mate_plies > b.mate_plies
    va = load_u32(&a.visits)
    vb = load_u32(&b.visits)
    if va != vb:
        return va > vb
    if va == 0:
        return False
    return load_f64(&a.value_sum) / va > load_f64(&b.value_sum) / vb


cdef uint32_t best_child(const NodePool* p, uint32_t node) noexcept nogil:
    """The child to play (see better_child); NODE_NONE when `node` has no children."""
    cdef const Node* n = &p.nodes[node]
    cdef uint32_t i, best = NODE_NONE
    for i in range(n.child_count):
        if best == NODE_NONE or better_child(&p.nodes[n.first_child + i], &p.nodes[best]):
            best = n.first_child + i
    return best
