# Monte Carlo tree search: the node pool, the per-search state and the four steps.
#
# Nodes live in one C array (the pool) sized from the Hash option; a node's children
# are a contiguous block of it, so a node needs only the index of its first child and
# their count.  A node's statistics are kept from the view of the player who made the
# move leading to it, so a parent picks the child with the best value as it is.
#
# Selection is PUCT (a prior per move from the move-ordering knowledge, see mcts_priors.pxd)
# or the textbook UCB1; a new leaf is valued by a short alpha-beta search (depth 0: the
# quiescence search) or by a random playout.  docs/mcts.md has the design and its figures.

from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t, int64_t
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

cdef enum:
    SELECT_PUCT = 0      # Q + c * P * sqrt(N) / (1 + n), unvisited children at the parent's Q minus a reduction
    SELECT_UCT = 1       # UCB1, every child once before any twice (the textbook)

cdef enum:
    # Why the last search ended (the stop rule is tested by it, never by the clock).
    STOP_NONE = 0
    STOP_SIGNAL = 1      # `stop`, or a stop inside a leaf's search
    STOP_PROVEN = 2      # the root's result is known
    STOP_LIMIT = 3       # playouts, depth, mate, or a full pool with no clock
    STOP_TIME = 4        # the soft budget (or hard limit) is spent
    STOP_SETTLED = 5     # the most visited move can no longer be overtaken in the time left

cdef enum:
    PRIOR_ONE = 65535    # a prior is stored in 1/65535ths: the node stays 32 bytes


cdef struct Node:
    double value_sum       # sum of results in [0, 1] for the player who moved into the node
    uint32_t visits
    uint32_t parent        # NODE_NONE at the root
    uint32_t first_child   # valid when child_count > 0
    uint16_t child_count   # 0: not expanded (a leaf, or a terminal position)
    Move move              # the move that leads here (MOVE_NONE at the root)
    float minimax          # implicit minimax backup: the negamax of the leaf values below, same view
    uint16_t prior         # P(move) in 1/PRIOR_ONE, at least 1 (uniform under UCT)
    uint8_t mate_plies     # for a proven win/loss: plies from this node to the mate (< MAX_PLY)
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
    double exploration     # UCT's constant
    double minimax_weight  # share of the minimax backup in a child's value at selection (0: plain UCT)
    int selection          # SELECT_*
    double c_puct          # PUCT's constant (values are in [0, 1])
    double fpu_reduction   # an unvisited child's value: the parent's mean minus this
    double prior_temperature
    int leaf_mode
    int leaf_depth         # LEAF_EVAL: alpha-beta plies before the quiescence search (0: quiescence only)
    int value_model        # VALUE_MODEL_* (mcts_value.pxd)
    int playout_cap        # plies of a random playout before the evaluation decides
    uint64_t rng

    SearchSignals* signals   # stop, ponderhit, infinite and the clock's start, from the UCI thread
    TimeBudget time          # the clock's soft and hard limits for this move
    uint64_t playout_limit   # 0: none
    int depth_limit          # stop once the average selection depth reaches it (or the pool is full); 0: none
    int mate_limit           # stop once a mate in this many moves is proven; 0: none

    uint64_t playouts
    uint64_t nodes           # playouts plus the alpha-beta nodes of the leaves' searches
    int stop_reason          # STOP_*
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
cdef double puct_score(double q, double prior, double sqrt_parent_visits, uint32_t visits,
                       double c_puct) noexcept nogil
cdef uint32_t select_child_puct(const NodePool* p, uint32_t node, double c_puct, double fpu_reduction,
                                double minimax_weight) noexcept nogil
cdef void backpropagate(NodePool* p, uint32_t node, double value) noexcept nogil
cdef void backup_minimax(NodePool* p, uint32_t node, double value) noexcept nogil
cdef bint update_proof(NodePool* p, uint32_t node) noexcept nogil
cdef void propagate_proof(NodePool* p, uint32_t node, uint32_t root) noexcept nogil
cdef uint32_t best_child(const NodePool* p, uint32_t node) noexcept nogil
cdef uint32_t expand(MCTSState* s, uint32_t node, const Move* allowed, int allowed_count) noexcept nogil

# The search loop (no GIL needed; it takes the GIL only to report progress).
cdef void mcts_search(MCTSState* s) noexcept nogil
