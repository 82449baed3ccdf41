# The state of one MCTS search: what its threads share besides the pool (MCTSShared) and what
# each thread has of its own (MCTSState), with the settings and the schedules they follow.
#
# Selection is PUCT (a prior per move from the move-ordering knowledge, see mcts_priors.pxd)
# or the textbook UCB1; a new leaf is valued by a short alpha-beta search (depth 0: the
# quiescence search) or by a random playout.  docs/mcts.md has the design.
#
# Several threads may grow one tree at once (Threads > 1), each with its own MCTSState and
# board.  A thread walking down counts as VIRTUAL_LOSS lost visits on every node of its path
# until its backup, so the others spread out.  docs/mcts.md, "Threads".

from libc.stdint cimport uint32_t, uint64_t, int64_t
from search.board.types cimport MAX_PLY
from search.state cimport SearchState
from search.control cimport SearchSignals
from search.timeman cimport TimeBudget
from search.mcts_pool cimport NodePool

cdef enum:
    MAX_TREE_DEPTH = MAX_PLY - 8   # deeper leaves are valued, never expanded (the qsearch needs plies too)

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

cdef enum:
    # What `verified_move` did when the search ended.
    VERIFY_NONE = 0         # nothing to check: off, no clock, the tree and the root's search agree, a proof
    VERIFY_KEPT = 1         # the favourite held within VERIFY_MARGIN of the root search's score
    VERIFY_OVERRULED = 2    # it failed low: the root search's move is played
    VERIFY_CUT_OFF = 3      # the hard limit stopped the check: the favourite is played
    VERIFY_DECISIVE = 4     # `decisive_root_move`: the root search scored a win; its move is played

cdef enum:
    # Refreshed priors (the `refresh_priors` switch, on by default): an expanded node's children get new
    # priors from an alpha-beta search of the node, which puts its best move in the table, at
    # REFRESH_FIRST_VISITS visits with REFRESH_FIRST_DEPTH plies, then one ply deeper each time the
    # visits grow 2**REFRESH_STEP_SHIFT-fold (32, 64, 128, ...) up to REFRESH_MAX_DEPTH plies.
    REFRESH_FIRST_VISITS = 16
    REFRESH_STEP_SHIFT = 1
    REFRESH_FIRST_DEPTH = 2
    REFRESH_MAX_DEPTH = 8
    # `deep_root_refresh`: the root's refreshes search ROOT_REFRESH_EXTRA plies deeper than another
    # node's at the same visits, and go on deepening past REFRESH_MAX_DEPTH (up to
    # ROOT_REFRESH_MAX_DEPTH): the root's priors decide the move, and alpha-beta searches it deeper.
    ROOT_REFRESH_EXTRA = 2
    ROOT_REFRESH_MAX_DEPTH = 40
    # `verified_move`: when the search ends with the tree's favourite at the root
    # not the move its latest refreshing search found best, the favourite is searched as deep in
    # a null window this many centipawns below that search's score; failing low there, it gives
    # way to the searched move.  Within the margin the tree's choice stands.
    VERIFY_MARGIN = 25
    # `decisive_root_move`: from this score on (the side to move's, or a mate), the root's latest
    # search chooses the move.  Past it the win probabilities saturate (mcts_value.pxd), so the
    # tree's visits no longer tell a move that makes progress from one that marks time.
    DECISIVE_SCORE = 600

cdef enum:
    # Lost visits a thread adds to each node of its path while it walks (multi-threaded
    # searches only; one thread searches with none, exactly as before threads existed).
    VIRTUAL_LOSS = 1


cdef struct MCTSShared:
    # What the threads of one search share besides the pool; counters change atomically.
    SearchSignals helper_signals   # the helpers' stop: raised by the main thread when it is done
    uint64_t playouts        # completed playouts of every thread (the limits and reports use these)
    uint64_t nodes           # playouts plus the leaves' alpha-beta nodes, every thread
    uint64_t depth_sum       # selection depths of every playout
    int seldepth
    int pool_full            # a flag: some expansion found no room, the tree stops growing
    int helpers_running      # helper threads still inside mcts_helper (the main one waits for 0)
    int pause_requested      # a flag: the main thread wants the tree quiet (to recycle the pool)
    int helpers_paused       # helpers waiting at the top of their loop while pause_requested
    int recycles             # times this search freed room by dropping the least visited subtrees
    # The root's latest refreshing search: its best move, depth and score in one word
    # (pack_root_search in mcts_expand.pxd), so no thread reads one search's move with
    # another's score; 0: none yet.
    uint64_t root_search


cdef struct MCTSState:
    # One per thread: the settings are the same in every copy, the board, RNG and counters are its own.
    SearchState* qs        # quiescence search state; qs.board is the board the tree walks on
    NodePool* pool         # shared
    MCTSShared* shared     # shared
    uint32_t root
    uint32_t virtual_loss  # VIRTUAL_LOSS with several threads, 0 with one
    double exploration     # UCT's constant
    int selection          # SELECT_*
    double c_puct          # PUCT's constant (values are in [0, 1])
    double fpu_reduction   # an unvisited child's value: the parent's mean minus this
    double prior_temperature
    const double* prior_weights  # HAND_ or FITTED_PRIOR_WEIGHTS (mcts_priors.pxd)
    int leaf_mode
    int leaf_depth         # LEAF_EVAL: alpha-beta plies before the quiescence search (0: quiescence only)
    int leaf_depth_root    # LEAF_EVAL: plies for a leaf next to the root, one less per ply below (0: off)
    int value_model        # VALUE_MODEL_* (mcts_value.pxd)
    int playout_cap        # plies of a random playout before the evaluation decides
    bint recycle           # a full pool drops its least visited subtrees and the tree grows on
    bint refresh_priors    # PUCT: re-derive a node's priors from a search of it as its visits grow
    int root_refresh_extra       # the root's refreshes search this many plies deeper (0: as any node's)
    int root_refresh_max_depth   # and stop deepening at this depth (REFRESH_MAX_DEPTH: as any node's)
    uint64_t rng             # each thread has its own stream

    # The main thread's: stop, ponderhit, infinite and the clock, from the UCI thread;
    # a helper's: the helpers' stop (shared.helper_signals).
    SearchSignals* signals
    TimeBudget time          # the clock's soft and hard limits for this move
    bint visit_share_time    # scale the soft limit by the most visited root move's share (adopted)
    bint verified_move       # the tree's favourite is checked against the root's search before it is played (adopted)
    bint decisive_root_move  # a won position's move is the root search's, not the tree's (adopted)
    double time_factor       # the soft limit's current scale (1: as the time manager planned)
    uint64_t playout_limit   # 0: none
    int depth_limit          # stop once the average selection depth reaches it (or the pool is full); 0: none
    int mate_limit           # stop once a mate in this many moves is proven; 0: none

    uint64_t playouts        # this thread's (the search's total is in shared)
    uint64_t nodes           # playouts plus the alpha-beta nodes of the leaves' searches, this thread's
    int stop_reason          # STOP_* (the main thread's is the search's)
    int verification         # VERIFY_*: what `verified_move` did at the end of the main thread's search
    uint32_t verified_child  # the root child played instead of the tree's favourite (NODE_NONE: the favourite)
    uint64_t depth_sum       # over this thread's playouts
    int seldepth
    # The Python MCTSSearcher, told of progress with the GIL (report_progress); NULL in a
    # helper, which never reports.
    void* reporter
    int64_t last_report_ms
