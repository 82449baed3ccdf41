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

# With no `movestogo`, plan as if this many moves remained: the game may go on long.
DEFAULT_MOVES_TO_GO = 30
# The hard limit may use at most this share of the remaining time in one move.
MAX_SHARE_OF_CLOCK = 0.35
# The hard limit is at most this many soft budgets.
HARD_OVER_SOFT = 4.0
# Share of the increment spent on this move (after Move Overhead).
INCREMENT_SHARE = 0.8

# Alpha-beta's early stop: another iteration is not started after this share of the soft
# budget, scaled by how unsettled the best move is.
cdef double ITERATION_SHARE = 0.6
cdef double INSTABILITY_PER_CHANGE = 0.4
cdef double MAX_INSTABILITY = 2.5
cdef int STABLE_ITERATIONS = 6          # the same best move this often: shrink the budget
cdef double STABLE_FACTOR = 0.7


def time_budget(limits, white_to_move: bool, move_overhead: int):
    """(soft_ms, hard_ms) for this move, or None when the clock does not bound it."""
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
    moves_to_go = limits.movestogo if limits.movestogo and limits.movestogo > 0 else DEFAULT_MOVES_TO_GO
    moves_to_go = min(moves_to_go, 50)
    if moves_to_go == 1:
        # The last move before the time control: use most of it, keep a margin.
        soft = usable * 0.5
        hard = usable * 0.8
    else:
        soft = usable / moves_to_go + increment * INCREMENT_SHARE
        hard = min(usable * MAX_SHARE_OF_CLOCK, soft * HARD_OVER_SOFT)
        soft = min(soft, hard)
    # Very low clocks: rather a shallow move now than a flag.
    return max(1, int(soft)), max(1, int(hard))


cdef void set_time_budget(TimeBudget* budget, object limits, bint white_to_move, int move_overhead):
    found = time_budget(limits, white_to_move, move_overhead)
    budget.timed = found is not None
    budget.fixed_time = limits.movetime is not None
    budget.soft_ms = found[0] if found else 0
    budget.hard_ms = found[1] if found else 0


cdef int64_t elapsed_ms(SearchSignals* signals) noexcept nogil:
    return now_ms() - signals.start_ms


cdef bint hard_limit_reached(const TimeBudget* budget, SearchSignals* signals) noexcept nogil:
    return budget.timed and not load_flag(&signals.pondering) and elapsed_ms(signals) >= budget.hard_ms


cdef bint may_stop_early(const TimeBudget* budget, SearchSignals* signals) noexcept nogil:
    return budget.timed and not budget.fixed_time and not load_flag(&signals.pondering)


cdef bint iteration_budget_spent(const TimeBudget* budget, SearchSignals* signals,
                                 int best_move_changes, int stable_iterations) noexcept nogil:
    cdef double instability = 1.0 + INSTABILITY_PER_CHANGE * best_move_changes
    cdef int64_t elapsed = elapsed_ms(signals)
    if instability > MAX_INSTABILITY:
        instability = MAX_INSTABILITY
    if stable_iterations >= STABLE_ITERATIONS:
        instability *= STABLE_FACTOR
    return elapsed >= budget.soft_ms * instability * ITERATION_SHARE or elapsed >= budget.hard_ms


cdef bint soft_budget_spent(const TimeBudget* budget, SearchSignals* signals) noexcept nogil:
    cdef int64_t elapsed
    if not budget.timed or load_flag(&signals.pondering):
        return False
    elapsed = elapsed_ms(signals)
    return elapsed >= budget.soft_ms or elapsed >= budget.hard_ms


cdef double work_left_in_budget(const TimeBudget* budget, double done, int64_t elapsed) noexcept nogil:
    if elapsed <= 0:
        return 1e300
    return done * (budget.soft_ms - elapsed) / elapsed
