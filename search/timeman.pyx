"""Time management: how long to think about one move, and when to stop.

Two numbers come out of the clock: a soft budget (do not start more work after it,
stretched while the best move keeps changing) and a hard limit (stop now).  Both leave
the ``Move Overhead`` for the GUI and the pipe, and the hard limit never takes more than
a share of what is on the clock.  Both searchers stop by the rules in this file.
"""

from libc.stdint cimport int64_t

cdef extern from "clock.h" nogil:
    int64_t now_ms "kestrel_now_ms"()
    int load_flag "kestrel_load_flag"(int* flag)

from search.param_table import default_params

_DEFAULTS = default_params()


def time_budget(limits, white_to_move: bool, move_overhead: int, params=None):
    """(soft_ms, hard_ms) for this move, or None when the clock does not bound it.

    The factors are the tm_* entries of the search parameter table (defaults if None):
    with no `movestogo`, plan for tm_moves_to_go moves; spend tm_increment_share of the
    increment; the hard limit is at most tm_hard_over_soft soft budgets and at most
    tm_max_share of the clock."""
    if params is None:
        params = _DEFAULTS
    overhead = max(0, move_overhead)
    if limits.movetime is not None:
        budget = max(1, limits.movetime - overhead)
        return budget, budget
    remaining = limits.wtime if white_to_move else limits.btime
    increment = (limits.winc if white_to_move else limits.binc) or 0
    if remaining is None:
        return None
    remaining = max(0, remaining)
    # Lag is paid on every move out of the increment first: only the rest may be spent,
    # or at fast controls (1 s + 0.01 s) the clock drains until a hiccup flags it.
    increment = max(0, increment - overhead)
    usable = max(1, remaining - overhead)
    moves_to_go = limits.movestogo if limits.movestogo and limits.movestogo > 0 else int(params["tm_moves_to_go"])
    moves_to_go = min(moves_to_go, 50)
    if moves_to_go == 1:
        # The last move before the time control: use most of it, keep a margin.
        soft = usable * 0.5
        hard = usable * 0.8
    else:
        soft = usable / moves_to_go + increment * params["tm_increment_share"]
        hard = min(usable * params["tm_max_share"], soft * params["tm_hard_over_soft"])
        soft = min(soft, hard)
    # Very low clocks: rather a shallow move now than a flag.
    return max(1, int(soft)), max(1, int(hard))


cdef void set_time_budget(TimeBudget* budget, object limits, bint white_to_move, int move_overhead,
                          dict params):
    found = time_budget(limits, white_to_move, move_overhead, params)
    budget.timed = found is not None
    budget.fixed_time = limits.movetime is not None
    budget.soft_ms = found[0] if found else 0
    budget.hard_ms = found[1] if found else 0
    budget.iteration_share = params["tm_iteration_share"]
    budget.instability_per_change = params["tm_instability_per_change"]
    budget.max_instability = params["tm_max_instability"]
    budget.stable_iterations = params["tm_stable_iterations"]
    budget.stable_factor = params["tm_stable_factor"]
    budget.node_center = params["tm_node_center"]
    budget.node_weight = params["tm_node_weight"]


def best_move_share_factor(best_move_share: float, params: dict | None = None) -> float:
    """The soft budget's factor when the best move took `best_move_share` of the root's nodes
    (node_time_management), from the tm_node_* parameters (defaults if None)."""
    cdef TimeBudget budget
    if params is None:
        params = _DEFAULTS
    budget.node_center = params["tm_node_center"]
    budget.node_weight = params["tm_node_weight"]
    return node_share_factor(&budget, best_move_share)


cdef int64_t elapsed_ms(SearchSignals* signals) noexcept nogil:
    return now_ms() - signals.start_ms


cdef inline int64_t on_clock_ms(SearchSignals* signals) noexcept nogil:
    """Milliseconds our clock has run in this move (since the ponderhit when pondering)."""
    return now_ms() - signals.clock_start_ms


cdef bint hard_limit_reached(const TimeBudget* budget, SearchSignals* signals) noexcept nogil:
    return budget.timed and not load_flag(&signals.pondering) and on_clock_ms(signals) >= budget.hard_ms


cdef bint may_stop_early(const TimeBudget* budget, SearchSignals* signals) noexcept nogil:
    return budget.timed and not budget.fixed_time and not load_flag(&signals.pondering)


cdef double node_share_factor(const TimeBudget* budget, double best_move_share) noexcept nogil:
    # A best move that took most of the search's nodes is settled (the others were refuted
    # cheaply): less time.  One that took few is contested: more.
    if best_move_share < 0:
        return 1.0
    return budget.node_weight * (budget.node_center - best_move_share)


cdef bint iteration_budget_spent(const TimeBudget* budget, SearchSignals* signals,
                                 int best_move_changes, int stable_iterations,
                                 double best_move_share) noexcept nogil:
    cdef double instability = 1.0 + budget.instability_per_change * best_move_changes
    cdef int64_t elapsed = elapsed_ms(signals)
    if instability > budget.max_instability:
        instability = budget.max_instability
    if stable_iterations >= budget.stable_iterations:
        instability *= budget.stable_factor
    instability *= node_share_factor(budget, best_move_share)
    return (elapsed >= budget.soft_ms * instability * budget.iteration_share
            or on_clock_ms(signals) >= budget.hard_ms)


cdef inline double scaled_soft_ms(const TimeBudget* budget, double factor) noexcept nogil:
    # `go movetime` uses all of its time, however confident the searcher is.
    return budget.soft_ms if budget.fixed_time else budget.soft_ms * factor


cdef bint soft_budget_spent(const TimeBudget* budget, SearchSignals* signals, double factor) noexcept nogil:
    if not budget.timed or load_flag(&signals.pondering):
        return False
    return elapsed_ms(signals) >= scaled_soft_ms(budget, factor) or on_clock_ms(signals) >= budget.hard_ms
