# Time management for both searchers: how long to think about one move, and when to stop.
#
# The plan is made from `go` with the GIL (set_time_budget): an optimum (the time this move
# plans to use when the search's signals are neutral) and a maximum (never beyond).  The
# searches ask the nogil rules below while they run.  Every factor lives in the search
# parameter table (the tm_* entries of search/param_table.py), so SPSA can tune it.

from libc.stdint cimport int64_t
from search.control cimport SearchSignals


cdef struct TimeBudget:
    bint timed           # the clock bounds this search (a clock or `go movetime`)
    bint fixed_time      # `go movetime`: use all of it, no early stop
    int64_t optimum_ms   # plan to stop here, scaled by the search's signals
    int64_t maximum_ms   # stop at once after this (measured on our clock: from the ponderhit)
    # The stop rule's factors (tm_* in search/param_table.py).
    double iteration_share
    double instability_per_change
    double max_instability
    int stable_iterations
    double stable_factor
    double node_center
    double node_weight
    double score_drop_per_cp
    double min_score_factor
    double max_score_factor


# What alpha-beta knows after an iteration: how settled its best move is and where its score went.
cdef struct IterationSignals:
    int best_move_changes     # decayed count of best-move changes at the root
    int stable_iterations     # iterations in a row that kept the best move
    double best_move_share    # the best move's share of the root's nodes (negative: not used)
    int score_drop            # centipawns the score fell below its running average (negative: rose)


# The plan for this move from `go`'s clocks (an untimed budget when no clock bounds it).
# `game_ply` is the plies played since the game began (from the position's move number).
cdef void set_time_budget(TimeBudget* budget, object limits, bint white_to_move, int game_ply,
                          int move_overhead, dict params)

# Milliseconds since the search of this move started (pondering included: after a ponderhit
# the time already spent thinking counts towards the optimum).
cdef int64_t elapsed_ms(SearchSignals* signals) noexcept nogil

# The maximum: stop now (never while pondering).
cdef bint hard_limit_reached(const TimeBudget* budget, SearchSignals* signals) noexcept nogil

# Whether a clock search may end before its maximum (not for movetime, never while pondering).
cdef bint may_stop_early(const TimeBudget* budget, SearchSignals* signals) noexcept nogil

# The optimum's factor for the search's signals after an iteration (1: as planned).
cdef double signals_factor(const TimeBudget* budget, const IterationSignals* iteration) noexcept nogil

# Alpha-beta, after an iteration: is there no time for another one?
cdef bint iteration_budget_spent(const TimeBudget* budget, SearchSignals* signals,
                                 const IterationSignals* iteration) noexcept nogil

# The optimum's factor for the best move's share of the root's nodes (1 when negative).
cdef double node_share_factor(const TimeBudget* budget, double best_move_share) noexcept nogil

# MCTS, between playouts: is the optimum, times `factor` (the searcher's confidence, 1: as
# planned; ignored under `go movetime`), spent?
cdef bint soft_budget_spent(const TimeBudget* budget, SearchSignals* signals, double factor) noexcept nogil
