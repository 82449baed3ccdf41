# MCTS backup and the solver: results added along the path, virtual losses, and proofs
# (MCTS-Solver) that move up the tree as far as they decide it.

from libc.stdint cimport uint32_t
from search.mcts_pool cimport NodePool, add_u32

# Add a result (for the player who moved into `node`) to every node up to the root, one visit
# that replaces the `virtual_loss` visits the walk down added to each.
cdef void backpropagate(NodePool* p, uint32_t node, double value, uint32_t virtual_loss) noexcept nogil
# Take back the virtual losses of a walk that backs nothing up, from `node` up to the root.
cdef void remove_virtual_loss(NodePool* p, uint32_t node, uint32_t virtual_loss) noexcept nogil
# Prove `node` from its children if they decide it; whether it is newly proven.
cdef bint update_proof(NodePool* p, uint32_t node) noexcept nogil
# `node` was just proven: prove its ancestors (up to `root`) as far as that decides them.
cdef void propagate_proof(NodePool* p, uint32_t node, uint32_t root) noexcept nogil


cdef inline void add_virtual_loss(NodePool* p, uint32_t node, uint32_t virtual_loss) noexcept nogil:
    """A thread walks through `node`: it counts as `virtual_loss` more visits with no result
    (lost, for the player who moved into it) until the backup, so other threads look elsewhere."""
    if virtual_loss:
        add_u32(&p.nodes[node].visits, virtual_loss)
