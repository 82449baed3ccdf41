"""MCTS backup and the solver (see mcts_backup.pxd): a playout's result added along its path, and
proofs (MCTS-Solver) moved up the tree: a proven node is never expanded or simulated again."""

from libc.stdint cimport uint32_t
from search.mcts_pool cimport (
    Node, NODE_NONE, PROVEN_UNKNOWN, PROVEN_WIN, PROVEN_LOSS, PROVEN_DRAW, proven_of, set_proven, add_f64,
)


cdef void backpropagate(NodePool* p, uint32_t node, double value, uint32_t virtual_loss) noexcept nogil:
    """Add a result (for the player who moved into `node`) to every node up to the root, one
    visit that replaces the `virtual_loss` visits the walk down added to each.

    Atomic adds, so that no other thread's update is lost; the unsigned count wraps, so
    1 - virtual_loss is a subtraction when the virtual loss is larger.
    """
    cdef uint32_t change = <uint32_t>(1 - virtual_loss)
    while node != NODE_NONE:
        add_u32(&p.nodes[node].visits, change)
        add_f64(&p.nodes[node].value_sum, value)
        value = 1.0 - value     # the parent's mover is the other player
        node = p.nodes[node].parent


cdef void remove_virtual_loss(NodePool* p, uint32_t node, uint32_t virtual_loss) noexcept nogil:
    """Take back the virtual losses of a walk that backs nothing up, from `node` up to the root."""
    if virtual_loss == 0:
        return
    while node != NODE_NONE:
        add_u32(&p.nodes[node].visits, <uint32_t>(0 - virtual_loss))
        node = p.nodes[node].parent


cdef bint update_proof(NodePool* p, uint32_t node) noexcept nogil:
    """Prove `node` from its children if they decide it; whether it is newly proven.

    The children's results are for the side to move at `node`: one winning child makes
    the node lost for the player who moved into it; all children lost make it won;
    all children proven with a draw the best of them make it a draw.

    Two threads may prove one node at once.  A proof is a fact of the position, so both
    find the same result; their distances may differ (each saw the children proven so
    far), and either one is a true mate distance.
    """
    cdef Node* n = &p.nodes[node]
    cdef const Node* child
    cdef uint32_t i
    cdef int shortest_win = 1000000, longest_loss = -1, proven
    cdef bint all_proven = True, any_draw = False
    if proven_of(n) != PROVEN_UNKNOWN or n.child_count == 0:
        return False
    for i in range(n.child_count):
        child = &p.nodes[n.first_child + i]
        proven = proven_of(child)
        if proven == PROVEN_WIN:
            if child.mate_plies < shortest_win:
                shortest_win = child.mate_plies
        elif proven == PROVEN_LOSS:
            if child.mate_plies > longest_loss:
                longest_loss = child.mate_plies
        elif proven == PROVEN_DRAW:
            any_draw = True
        else:
            all_proven = False
    if shortest_win < 1000000:
        set_proven(n, PROVEN_LOSS, shortest_win + 1)
        return True
    if not all_proven:
        return False
    if any_draw:
        set_proven(n, PROVEN_DRAW, 0)
    else:
        set_proven(n, PROVEN_WIN, longest_loss + 1)
    return True


cdef void propagate_proof(NodePool* p, uint32_t node, uint32_t root) noexcept nogil:
    """`node` was just proven: prove its ancestors as far as that decides them."""
    while node != root and node != NODE_NONE:
        node = p.nodes[node].parent
        if node == NODE_NONE or not update_proof(p, node):
            return
