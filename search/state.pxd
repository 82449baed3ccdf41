# The state of one alpha-beta search, passed explicitly to every search function.

from libc.stdint cimport int64_t, uint64_t, int16_t
from search.board.types cimport Move, MAX_PLY, MAX_MOVES
from search.board.board cimport Board
from search.tt cimport TranspositionTable
from search.control cimport SearchSignals
from search.timeman cimport TimeBudget
from search.params cimport SearchParams
from search.tbprobe cimport TablebaseProbing
from eval.evaluator cimport Evaluator


cdef enum:
    CORRECTION_SIZE_BITS = 14     # a correction table has 2^14 entries per side to move
    CORRECTION_SIZE = 1 << CORRECTION_SIZE_BITS


cdef struct SearchConfig:
    # Each technique can be switched off: tests compare the full searcher with the
    # reference minimax, and matches measure what each one is worth.
    bint tt_cutoffs
    bint null_move
    bint late_move_reductions
    bint internal_reduction     # one ply less at PV and cut nodes without a hash move
    bint reverse_futility       # static eval far above beta at depth <= 6: fail high
    bint futility               # quiet moves that cannot reach alpha at their reduced depth <= 6
    bint late_move_pruning      # the last quiet moves at depth <= 4
    bint see_pruning            # captures with SEE < -see_margin * depth at depth <= see_max_depth (param_table.py)
    bint check_extension        # one ply more for checks that do not lose material (SEE >= 0)
    bint quiescence
    bint quiescence_tt          # quiescence takes the TT's move and cutoffs, and stores its results
    bint aspiration
    bint node_time_management   # a clock search stops sooner the larger the best move's share of nodes
    bint singular_extension     # a hash move far better than the rest is searched a ply deeper
    bint draw_scaling           # the evaluation scaled toward 0 for material that cannot win (eval/draw_scale.pxd)
    bint kbn_mating             # KBN v K scored toward a corner of the bishop's colour (eval/mating.pxd)
    bint correction_history     # the static evaluation corrected by past searches (search/correction.pxd)
    bint probcut                # a capture beating beta + probcut_margin at reduced depth cuts the node


# Where every searcher starts: every technique on (each was adopted by games: an SPRT, or for
# kbn_mating the mate drill against the tables; one that lost is deleted, not left off).
# AlphaBetaSearcher.configure() switches them off from here for ablation, and the MCTS leaves
# search with it (aspiration off), so a new technique is switched on in one place.
cdef inline SearchConfig adopted_config() noexcept nogil:
    cdef SearchConfig config
    config.tt_cutoffs = True
    config.null_move = True
    config.late_move_reductions = True
    config.internal_reduction = True
    config.reverse_futility = True
    config.futility = True
    config.late_move_pruning = True
    config.see_pruning = True
    config.check_extension = True
    config.quiescence = True
    config.quiescence_tt = True
    config.aspiration = True
    config.node_time_management = True
    config.singular_extension = True
    config.draw_scaling = True
    config.kbn_mating = True
    config.correction_history = True
    config.probcut = True
    return config


cdef struct RootMove:
    Move move
    int score            # of the latest search of this move; -VALUE_INFINITE if it failed low
    int previous_score   # from the last completed iteration
    int seldepth
    int bound            # BOUND_EXACT, or BOUND_LOWER/UPPER after an aspiration failure
    uint64_t nodes       # this thread's nodes under this move, summed over the iterations
    int pv_length
    Move pv[MAX_PLY]


cdef struct SearchState:
    Board board
    TranspositionTable* tt
    SearchConfig config
    SearchParams params      # margins, depth limits and reductions (search/param_table.py)
    TablebaseProbing tb      # Syzygy probes inside the tree (off when tb.prober is NULL)
    Evaluator evaluator      # the evaluation, with this thread's own NNUE accumulators

    SearchSignals* signals   # stop, ponderhit, infinite and the clock's start, from the UCI thread
    bint stopped             # internal: the search has to unwind now

    TimeBudget time      # the clock's soft and hard limits for this move
    uint64_t node_limit  # 0: none
    uint64_t soft_node_limit  # no new iteration once this many nodes are searched; 0: none
    int depth_limit
    int mate_limit       # in moves; 0: none

    uint64_t nodes
    int seldepth
    int completed_depth
    int best_move_changes

    int history[2][64][64]
    # How far searches found the static evaluation off, per side to move and kind of position
    # (search/correction.pxd): by both sides' pawns, and by each colour's other pieces.
    int16_t pawn_correction[2][CORRECTION_SIZE]
    int16_t non_pawn_correction[2][2][CORRECTION_SIZE]
    Move killers[MAX_PLY + 2][2]
    Move counter_moves[12][64]
    Move pv_table[MAX_PLY + 1][MAX_PLY + 1]
    int pv_length[MAX_PLY + 1]
    int static_eval[MAX_PLY + 2]
    Move move_stack[MAX_PLY + 2]
    Move excluded[MAX_PLY + 2]      # the hash move a singularity test leaves out at this ply, or MOVE_NONE

    RootMove root_moves[MAX_MOVES]
    int root_count
    int multipv
    int pv_index

    void* reporter       # the Python searcher, told of progress with the GIL (report_progress); NULL in helpers
    int thread_index     # 0: the main thread, which reports and decides; 1..: Lazy SMP helpers
    int64_t last_currmove_report_ms
    int currmove_number  # of the root move in move_stack[0], for `info currmove`
