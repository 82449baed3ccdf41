# MCTS expansion: a node's children with their priors, and the searches that refresh those
# priors as the node's visits grow (REFRESH_* in mcts_state.pxd).

from libc.stdint cimport uint32_t, uint64_t
from search.board.types cimport Move
from search.mcts_state cimport MCTSState

# Give `node` a child for every legal move (only those in `allowed` if it is not NULL), best
# prior first; the first child, or NODE_NONE when the pool cannot hold them (pool_full is
# raised) or there is no move.  The caller owns the node's expansion (its stage is
# STAGE_EXPANDING, or no other thread runs); on success the children are published with
# STAGE_EXPANDED, on failure the caller resets the stage.
cdef uint32_t expand(MCTSState* s, uint32_t node, const Move* allowed, int allowed_count) noexcept nogil
# refresh_priors' plies at this many visits, or 0: `extra` more than the schedule, at most `max_depth`.
cdef int refresh_depth(uint32_t visits, int extra, int max_depth) noexcept nogil
# New priors for the children of `node` (the board stands at it, `ply` moves below the root)
# from a `depth`-ply search of it; at the root the search is also kept in shared.root_search.
cdef void refresh_priors(MCTSState* s, uint32_t node, int ply, int depth) noexcept nogil
# The root's latest refreshing search, unpacked from MCTSShared.root_search (MOVE_NONE: none yet).
cdef Move root_search_move_of(uint64_t word) noexcept nogil
cdef int root_search_depth_of(uint64_t word) noexcept nogil
cdef int root_search_score_of(uint64_t word) noexcept nogil
