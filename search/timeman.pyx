"""Time management: how long to think about one move, and when to stop.

The clock gives two numbers (``time_budget``).  The optimum is the time this move plans to
use: the time for the moves the game still likely has (the clock, the increments to come,
less the lag every move pays), shared out evenly.  The maximum guards the clock: never more
than a share of what is on it now, never more than a few optima.  While it runs, alpha-beta
scales the optimum by its signals after every iteration (``signals_factor``): a best move
that keeps changing, a score that drops or a best move that took few of the root's nodes
stretch it; a settled best move shrinks it.  Both searchers stop by the rules in this file.
"""

from libc.stdint cimport int64_t

cdef extern from "clock.h" nogil:
    int64_t now_ms "kestrel_now_ms"()
    int load_flag "kestrel_load_flag"(int* flag)

from search.param_table import default_params

_DEFAULTS = default_params()
# The most moves one plan spreads the clock over: a `movestogo` beyond it is planned as this.
MAX_HORIZON = 50


def game_ply(fullmove_number: int, white_to_move: bool) -> int:
    """Plies played since the game began, from a position's move number and side to move."""
    return max(0, 2 * (fullmove_number - 1) + (0 if white_to_move else 1))


def moves_left_horizon(ply: int, params: dict | None = None, increment: bool = True) -> float:
    """The moves a sudden-death plan spreads the clock over at `ply`: many at the start, fewer
    as the game goes on, never fewer than tm_horizon_min (the game may last long).  Without an
    increment that pays the lag a move likely meets, never fewer than tm_horizon_min_no_increment:
    nothing refills the clock, so each move may take only a small share of it."""
    if params is None:
        params = _DEFAULTS
    move_number = max(0, ply) // 2
    floor = params["tm_horizon_min"] if increment else params["tm_horizon_min_no_increment"]
    return max(floor, params["tm_horizon_start"] - params["tm_horizon_per_move"] * move_number)


def time_budget(limits, white_to_move: bool, move_overhead: int, params=None, ply: int = 0):
    """(optimum_ms, maximum_ms) for this move, or None when the clock does not bound it.

    `go movetime` plans its time less the overhead, both numbers.  Otherwise the plan covers
    `horizon` moves: `movestogo` when the GUI says when the clock refills, else the moves the
    game likely still has at this ply (moves_left_horizon).  The time for them is the clock less
    this move's ``Move Overhead``, plus the increments that arrive before the last of them, less
    the lag each of those moves likely pays (tm_expected_lag_share of the overhead) and less the
    reserves; the optimum is an even share of it.  The maximum is at most tm_max_over_optimum
    optima and tm_max_share of the clock less this move's overhead; before a time control
    (movestogo 1), half and 0.8 of it.  The factors are the tm_* entries of the search
    parameter table (defaults if None)."""
    if params is None:
        params = _DEFAULTS
    overhead = max(0, move_overhead)
    if limits.movetime is not None:
        budget = max(1, limits.movetime - overhead)
        return budget, budget
    remaining = limits.wtime if white_to_move else limits.btime
    if remaining is None:
        return None
    remaining = max(0, remaining)
    increment = max(0, (limits.winc if white_to_move else limits.binc) or 0)
    on_clock = max(1, remaining - overhead)
    # Move Overhead is the most lag a move may meet: this move's maximum keeps all of it back.
    # The plan for the moves after it counts on the lag a move usually meets, a share of that.
    lag = overhead * params["tm_expected_lag_share"]
    if limits.movestogo and limits.movestogo > 0:
        horizon = min(limits.movestogo, MAX_HORIZON)
    else:
        horizon = moves_left_horizon(ply, params, increment > lag)
    if horizon <= 1:
        # The last move before the time control: use most of it, keep a margin.
        return max(1, int(on_clock * 0.5)), max(1, int(on_clock * 0.8))
    # Each move pays its lag out of its increment first.  The lag of the moves ahead is kept back
    # (for at most tm_lag_reserve_moves of them): without an increment the pool then runs dry
    # before the clock does, and a long game lasts.
    # A few increments are kept back too: a fast game must not run its clock down to the
    # overhead, where any hiccup of the machine flags it.
    reserve = lag * min(horizon, params["tm_lag_reserve_moves"]) + increment * params["tm_increment_reserve"]
    pool = remaining - overhead + max(0, increment - lag) * (horizon - 1) - reserve
    optimum = max(1.0, pool) / horizon
    maximum = min(on_clock * params["tm_max_share"], optimum * params["tm_max_over_optimum"])
    # Very low clocks: rather a shallow move now than a flag.
    return max(1, int(min(optimum, maximum))), max(1, int(maximum))


cdef void set_time_budget(TimeBudget* budget, object limits, bint white_to_move, int game_ply,
                          int move_overhead, dict params):
    found = time_budget(limits, white_to_move, move_overhead, params, game_ply)
    budget.timed = found is not None
    budget.fixed_time = limits.movetime is not None
    budget.optimum_ms = found[0] if found else 0
    budget.maximum_ms = found[1] if found else 0
    budget.iteration_share = params["tm_iteration_share"]
    budget.instability_per_change = params["tm_instability_per_change"]
    budget.max_instability = params["tm_max_instability"]
    budget.stable_iterations = params["tm_stable_iterations"]
    budget.stable_factor = params["tm_stable_factor"]
    budget.node_center = params["tm_node_center"]
    budget.node_weight = params["tm_node_weight"]
    budget.score_drop_per_cp = params["tm_score_drop_per_cp"]
    budget.min_score_factor = params["tm_min_score_factor"]
    budget.max_score_factor = params["tm_max_score_factor"]


def search_signals_factor(best_move_changes: int = 0, stable_iterations: int = 0,
                          best_move_share: float = -1.0, score_drop: int = 0,
                          params: dict | None = None) -> float:
    """The optimum's factor alpha-beta applies after an iteration with these signals, from the
    tm_* parameters (defaults if None); 1.0 plays the plan as made."""
    cdef TimeBudget budget
    cdef IterationSignals iteration
    set_time_budget(&budget, _NO_CLOCK, True, 0, 0, _DEFAULTS if params is None else params)
    iteration.best_move_changes = best_move_changes
    iteration.stable_iterations = stable_iterations
    iteration.best_move_share = best_move_share
    iteration.score_drop = score_drop
    return signals_factor(&budget, &iteration)


class _Unbounded:
    """A `go` with no clock, for reading the factors alone."""
    movetime = None
    wtime = btime = winc = binc = movestogo = None


_NO_CLOCK = _Unbounded()


def best_move_share_factor(best_move_share: float, params: dict | None = None) -> float:
    """The optimum's factor when the best move took `best_move_share` of the root's nodes
    (node_time_management), from the tm_node_* parameters (defaults if None)."""
    return search_signals_factor(best_move_share=best_move_share, params=params)


cdef int64_t elapsed_ms(SearchSignals* signals) noexcept nogil:
    return now_ms() - signals.start_ms


cdef inline int64_t on_clock_ms(SearchSignals* signals) noexcept nogil:
    """Milliseconds our clock has run in this move (since the ponderhit when pondering)."""
    return now_ms() - signals.clock_start_ms


cdef bint hard_limit_reached(const TimeBudget* budget, SearchSignals* signals) noexcept nogil:
    return budget.timed and not load_flag(&signals.pondering) and on_clock_ms(signals) >= budget.maximum_ms


cdef bint may_stop_early(const TimeBudget* budget, SearchSignals* signals) noexcept nogil:
    return budget.timed and not budget.fixed_time and not load_flag(&signals.pondering)


cdef double node_share_factor(const TimeBudget* budget, double best_move_share) noexcept nogil:
    # A best move that took most of the search's nodes is settled (the others were refuted
    # cheaply): less time.  One that took few is contested: more.
    if best_move_share < 0:
        return 1.0
    return budget.node_weight * (budget.node_center - best_move_share)


cdef double signals_factor(const TimeBudget* budget, const IterationSignals* iteration) noexcept nogil:
    cdef double factor = 1.0 + budget.instability_per_change * iteration.best_move_changes
    cdef double score_factor = 1.0 + budget.score_drop_per_cp * iteration.score_drop
    if factor > budget.max_instability:
        factor = budget.max_instability
    if iteration.stable_iterations >= budget.stable_iterations:
        factor *= budget.stable_factor
    # A falling score means the search found trouble it has not solved yet: think on.
    if score_factor < budget.min_score_factor:
        score_factor = budget.min_score_factor
    elif score_factor > budget.max_score_factor:
        score_factor = budget.max_score_factor
    return factor * score_factor * node_share_factor(budget, iteration.best_move_share)


cdef bint iteration_budget_spent(const TimeBudget* budget, SearchSignals* signals,
                                 const IterationSignals* iteration) noexcept nogil:
    # The next iteration would take longer than this one: start it only while well inside the plan.
    return (elapsed_ms(signals) >= budget.optimum_ms * signals_factor(budget, iteration) * budget.iteration_share
            or on_clock_ms(signals) >= budget.maximum_ms)


cdef inline double scaled_optimum_ms(const TimeBudget* budget, double factor) noexcept nogil:
    # `go movetime` uses all of its time, however confident the searcher is.
    return budget.optimum_ms if budget.fixed_time else budget.optimum_ms * factor


cdef bint soft_budget_spent(const TimeBudget* budget, SearchSignals* signals, double factor) noexcept nogil:
    if not budget.timed or load_flag(&signals.pondering):
        return False
    return elapsed_ms(signals) >= scaled_optimum_ms(budget, factor) or on_clock_ms(signals) >= budget.maximum_ms
