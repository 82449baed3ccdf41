# The tree of an MCTS searcher between its searches: the node pool, what the next search keeps
# of it, and how it reads back as moves, lines and scores.
#
# The C search (mcts.pyx and its steps) grows the pool through MCTSState.pool; this class owns it, decides the
# root a search starts from (a kept subtree or a fresh root) and answers the searcher's reports
# and inspection once the search is done (or, for reports, while its helpers still grow it).

from libc.stdint cimport uint32_t, uint64_t
from search.board.board cimport Board
from search.mcts_pool cimport NodePool, NODE_NONE
from search.mcts_state cimport MCTSState, MCTSShared


cdef class MCTSTree:
    cdef NodePool pool
    cdef bint valid              # the last search left a consistent tree (False while one runs)
    cdef bint was_full           # the pool filled up in a search of this tree
    cdef bint root_filtered      # the root's moves were limited to `searchmoves`
    cdef uint64_t root_key       # the position at the root

    # Room for as many nodes as `nbytes` hold, forgetting the tree; 0, or -1 when there is no room.
    cdef int allocate(self, uint64_t nbytes) noexcept
    # The root of the search about to start at `b` (s is its main thread's state, set up): the
    # subtree kept from the last search when `reuse` and `b` follows its root within
    # MAX_REUSE_PLIES, else a fresh root expanded to its legal moves (only `allowed`, if any).
    cdef uint32_t prepare_root(self, MCTSState* s, Board* b, list allowed, bint reuse) except? NODE_NONE
    cdef uint32_t _kept_root(self, uint32_t root, Board* b)
    # The search that grew the tree is over: the tree is consistent again.
    cdef void search_done(self, const MCTSShared* shared)
    # The most visited path from `node` (the proven best where it is proven), in UCI.
    cdef list pv_from(self, uint32_t node, Board* b)
    # `root`'s children, best first by the rule of the final move choice, `chosen` first of all.
    cdef list ranked_children(self, uint32_t root, uint32_t chosen)
    # A node's score for the side to move at its parent: a mate score, or the mean value read
    # back through the value model (mcts_value.pxd) in centipawns.
    cdef int node_score(self, uint32_t node, int model, int material)
    # The root's children as dicts (move, visits, value, prior, proven, mate_plies).
    cdef list root_children(self, uint32_t root, Board* b)
