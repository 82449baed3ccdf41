# Monte Carlo tree search: the node pool, the per-search state and the four steps.
#
# Nodes live in one C array (the pool) sized from the Hash option; a node's children
# are a contiguous block of it, so a node needs only the index of its first child and
# their count.  A node's statistics are kept from the view of the player who made the
# move leading to it, so a parent picks the child with the best value as it is.

from libc.stdint cimport uint8_t, uint16_t, int16_t, uint32_t, uint64_t, int64_t
from search.board.types cimport Move, MAX_PLY
from search.state cimport SearchState
from search.control cimport SearchSignals
from search.timeman cimport TimeBudget

cdef enum:
    NODE_NONE = 0xFFFFFFFF

cdef enum:
    # Proven game-theoretic results, from the view of the player who moved into the node.
    PROVEN_UNKNOWN = 0
    PROVEN_WIN = 1
    PROVEN_LOSS = 2
    PROVEN_DRAW = 3

cdef enum:
    LEAF_EVAL = 0        # quiescence score of the leaf as a win probability
    LEAF_PLAYOUT = 1     # random moves to the end of the game or the ply cap, then evaluate


cdef struct Node:
    double value_sum       # sum of results in [0, 1] for the player who moved into the node
    uint32_t visits
    uint32_t parent        # NODE_NONE at the root
    uint32_t first_child   # valid when child_count > 0
    uint16_t child_count   # 0: not expanded (a leaf, or a terminal position)
    Move move              # the move that leads here (MOVE_NONE at the root)
    float minimax          # implicit minimax backup: the negamax of the leaf values below, same view
    int16_t mate_plies     # for a proven win/loss: plies from this node to the mate
    uint8_t proven         # PROVEN_*


cdef struct NodePool:
    Node* nodes
    uint32_t* remap        # scratch for compaction when a subtree is kept (part of the budget)
    uint32_t capacity
    uint32_t used


cdef struct MCTSState:
    SearchState* qs        # quiescence search state; qs.board is the board the tree walks on
    NodePool* pool
    uint32_t root
    double exploration
    double minimax_weight  # share of the minimax backup in a child's value at selection (0: plain UCT)
    int leaf_mode
    int playout_cap        # plies of a random playout before the evaluation decides
    uint64_t rng

    SearchSignals* signals   # stop, ponderhit, infinite and the clock's start, from the UCI thread
    TimeBudget time          # the clock's soft and hard limits for this move
    uint64_t playout_limit   # 0: none
    int depth_limit          # stop once the average selection depth reaches it (or the pool is full); 0: none
    int mate_limit           # stop once a mate in this many moves is proven; 0: none

    uint64_t playouts
    uint64_t depth_sum       # over playouts, for the average selection depth
    int seldepth
    bint pool_full
    void* reporter           # the Python MCTSSearcher, told of progress with the GIL (report_progress)
    int64_t last_report_ms


# Pool management (0 on success for the allocation).
cdef int pool_allocate(NodePool* p, uint64_t nbytes) noexcept nogil
cdef void pool_free(NodePool* p) noexcept nogil
cdef uint32_t pool_new_root(NodePool* p) noexcept nogil
cdef uint32_t pool_alloc(NodePool* p, uint32_t count) noexcept nogil
cdef uint32_t pool_keep_subtree(NodePool* p, uint32_t new_root) noexcept nogil

# The pieces of one iteration, exposed for tests on hand-made trees.
cdef double ucb_score(double log_parent_visits, uint32_t visits, double value_sum,
                      double c) noexcept nogil
cdef uint32_t select_child(const NodePool* p, uint32_t node, double c, double minimax_weight) noexcept nogil
cdef void backpropagate(NodePool* p, uint32_t node, double value) noexcept nogil
cdef void backup_minimax(NodePool* p, uint32_t node, double value) noexcept nogil
cdef bint update_proof(NodePool* p, uint32_t node) noexcept nogil
cdef void propagate_proof(NodePool* p, uint32_t node, uint32_t root) noexcept nogil
cdef uint32_t best_child(const NodePool* p, uint32_t node) noexcept nogil
cdef uint32_t expand(MCTSState* s, uint32_t node, const Move* allowed, int allowed_count) noexcept nogil

# The search loop (no GIL needed; it takes the GIL only to report progress).
cdef void mcts_search(MCTSState* s) noexcept nogil
cdef double cp_to_probability(int cp) noexcept nogil
cdef int probability_to_cp(double q) noexcept nogil
