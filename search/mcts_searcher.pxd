# The MCTS searcher (search/mcts_searcher.pyx): its C state, declared here so that Cython outside the
# module can reach it.  The tests' own Cython does (tests/_mcts_internals.pyx: a move put in the
# table, the favourite's verification run by hand), so that the engine carries no hooks for them.

from libc.stdint cimport int64_t, uint32_t
from search.board.types cimport MoveList
from search.board.position cimport Position
from search.tt cimport TranspositionTable
from search.state cimport SearchState
from search.mcts_state cimport MCTSState, MCTSShared
from search.mcts_tree cimport MCTSTree
from search.searcher cimport Searcher


cdef class MCTSSearcher(Searcher):
    cdef MCTSState* state                # the main thread's
    cdef SearchState* qs                 # its board and leaf searches
    cdef MCTSTree tree
    cdef MCTSShared shared               # counters and flags of every thread of a search
    cdef MCTSState* helper_walks         # the helpers' tree walks (their boards and leaf searches: helpers)
    cdef TranspositionTable tt
    cdef public double exploration
    cdef public double c_puct
    cdef public double fpu_reduction
    cdef public double prior_temperature
    cdef public int playout_cap
    cdef public bint reuse_tree
    cdef public bint recycle            # a full pool drops its least visited subtrees (pool_recycle)
    cdef public bint visit_share_time   # the stop rule's visit-share scaling (DEFAULT_VISIT_SHARE_TIME)
    cdef public bint fitted_priors      # the priors' fitted weights, else the hand-set ones (DEFAULT_FITTED_PRIORS)
    cdef public bint refresh_priors     # priors refreshed by searches of the node (DEFAULT_REFRESH_PRIORS)
    cdef public bint deep_root_refresh  # the root's refreshes deeper and uncapped (DEFAULT_DEEP_ROOT_REFRESH)
    cdef public bint verified_move       # the favourite checked against the root's search (DEFAULT_VERIFIED_MOVE)
    cdef public bint decisive_root_move  # a won position's move is the root search's (DEFAULT_DECISIVE_ROOT_MOVE)
    cdef int leaf_code
    cdef int leaf_depth_value
    cdef int leaf_depth_root_value
    cdef int selection_code
    cdef int value_model_code
    cdef int root_material
    cdef int64_t seed_value
    cdef bint full_reported

    # Put `position` on the leaf board (with this searcher's table) and its legal moves in `moves`.
    cdef void _set_position(self, Position position, MoveList* moves)
    # The root child to play, and a root child's score for `info` and the result.
    cdef uint32_t _chosen_child(self)
    cdef int _child_value(self, uint32_t child)
