# Monte Carlo tree search: the loops that run the iterations, on the pool (mcts_pool.pxd) with
# the state of the search (mcts_state.pxd); an iteration selects (mcts_select.pxd), expands
# (mcts_expand.pxd), values the leaf (mcts_leaf.pxd) and backs the value up (mcts_backup.pxd).
#
# The main thread runs mcts_search (no GIL needed; it takes the GIL only to report progress),
# each helper mcts_helper, all on the same pool and MCTSShared, which shared_reset clears
# before any of them starts.  mcts_search stops the helpers and waits for them before its
# last report, so the tree is quiet when it returns.

from search.mcts_state cimport MCTSState, MCTSShared

cdef void shared_reset(MCTSShared* shared, int helpers) noexcept nogil
cdef void mcts_search(MCTSState* s) noexcept nogil
cdef void mcts_helper(MCTSState* s) noexcept nogil
# `verified_move`'s check of the tree's favourite against the root's latest search (the main
# thread's, once the helpers are done): sets s.verification, and s.verified_child if overruled.
cdef void verify_tree_move(MCTSState* s) noexcept nogil
# `decisive_root_move` (before that check, whatever ended the search): when the root's latest search
# scores the position won, its move in place of the tree's favourite.  True when it decided.
cdef bint play_decisive_search_move(MCTSState* s) noexcept nogil
