# Time management for both searchers: how long to think about one move, and when to stop.
#
# The budget is set from `go` with the GIL (set_time_budget); the searches ask the
# nogil rules below while they run.  Every factor of the rules lives here.

from libc.stdint cimport int64_t
from search.control cimport SearchSignals


cdef struct TimeBudget:
    bint timed           # the clock bounds this search (a clock or `go movetime`)
    bint fixed_time      # `go movetime`: use all of it, no early stop
    int64_t soft_ms      # do not start more work after this (scaled by the searcher's confidence)
    int64_t hard_ms      # stop at once after this
    # The stop rule's factors, from the search parameter table (tm_* in search/param_table.py).
    double iteration_share
    double instability_per_change
    double max_instability
    int stable_iterations
    double stable_factor
    double node_center
    double node_weight


# The budget for this move from `go`'s clocks (an untimed budget when no clock bounds it).
cdef void set_time_budget(TimeBudget* budget, object limits, bint white_to_move, int move_overhead,
                          dict params)

# Milliseconds since the search of this move started (pondering included: after a ponderhit
# the time already spent thinking counts towards the soft budget).
cdef int64_t elapsed_ms(SearchSignals* signals) noexcept nogil

# The hard limit: stop now (never while pondering).
cdef bint hard_limit_reached(const TimeBudget* budget, SearchSignals* signals) noexcept nogil

# Whether a clock search may end before its hard limit (not for movetime, never while pondering).
cdef bint may_stop_early(const TimeBudget* budget, SearchSignals* signals) noexcept nogil

# Alpha-beta, after an iteration: is there no time for another one?  `best_move_changes`
# (decayed by the caller), `stable_iterations` and the best move's share of the root's nodes
# (negative: not used) stretch or shrink the soft budget.
cdef bint iteration_budget_spent(const TimeBudget* budget, SearchSignals* signals,
                                 int best_move_changes, int stable_iterations,
                                 double best_move_share) noexcept nogil

# The soft budget's factor for the best move's share of the root's nodes (1 when negative).
cdef double node_share_factor(const TimeBudget* budget, double best_move_share) noexcept nogil

# MCTS, between playouts: is the soft budget, times `factor` (the searcher's confidence, 1: as
# planned; ignored under `go movetime`), spent?
cdef bint soft_budget_spent(const TimeBudget* budget, SearchSignals* signals, double factor) noexcept nogil
