# The one front both searchers share: what the UCI loop (or a test) drives.
#
# `Searcher.search()` is a template: it checks for a legal move, turns `go` into
# numbers, asks the subclass to prepare its C state (`_prepare`), hands the helper
# threads their part, runs the subclass's C search without the GIL (`_run`), waits for
# stop/ponderhit when the protocol says so, waits for the helpers and asks the subclass
# for the result (`_finish`).  Progress comes back as typed records (search/info.py)
# through the subclass's `_report`.
#
# Helper threads (Threads > 1) are the Searcher's: it keeps one SearchState per helper
# (its board, stacks and histories) and a pool of threads (search/thread_pool.pxd) that
# are started when the thread count is set and parked between searches.  With helpers, a
# timed search also wakes one more thread of the pool, the clock's watch: at the hard
# limit it halts the helpers, so that the main thread gets a core to notice the time even
# when there are many more threads than cores.  `stop` halts them at once too.  The
# subclass says what a helper searches and how it is halted.

from cpython.pythread cimport PyThread_type_lock
from libc.stdint cimport int64_t
from search.board.board cimport Board
from search.control cimport SearchControl
from search.state cimport SearchState
from search.timeman cimport TimeBudget
from search.thread_pool cimport ThreadPool

# A zeroed SearchState on the heap (free_search_state frees it); MemoryError when there is no room.
cdef SearchState* new_search_state() except NULL
cdef void free_search_state(SearchState* state) noexcept


cdef class Searcher:
    cdef public int multipv          # principal variations to report (1..MAX_MULTIPV)
    cdef public int move_overhead    # ms kept back per move for the GUI and the pipe
    cdef SearchControl control       # stop / ponderhit / infinite, shared with the C search
    cdef object on_info              # the caller's report callback, set only while a search runs
    cdef int hash_mb
    cdef dict search_params          # the checked table of search/param_table.py in use
    cdef readonly object time_plan   # (optimum_ms, maximum_ms) the last `go` planned, None if untimed
    cdef SearchState** helpers       # helper_count helper threads' states (threads - 1)
    cdef int helper_count
    cdef ThreadPool pool             # helper_count threads and the clock's watch (none with 1 thread)
    cdef str helper_name             # the threads' names: helper_name-1, helper_name-2, ...
    cdef int64_t watch_limit_ms      # the hard limit the watch keeps, on our clock (0: no watch)
    cdef PyThread_type_lock watch_cancel   # held; released to end the watch when the search ends
    cdef readonly object network     # the eval.nnue.Network every thread evaluates with; None: the weighted one

    # What each searcher supplies.
    cdef int _resize(self, int megabytes) except -1
    cdef int _load_params(self) except -1
    cdef int _prepare(self, Board* root, list allowed, TimeBudget budget, object limits) except -1
    cdef void _run(self) noexcept nogil
    cdef object _finish(self)
    cdef void _no_legal_move(self)
    # Point the subclass's own states' evaluators at `network` (the helpers' are done here).
    cdef int _use_network(self) except -1
    # The helpers: size the subclass's own per-helper state to helper_count (called after the
    # states above are resized), give helper `index` its root, settings and limits (before its
    # thread is woken), run its search (without the GIL, in its parked thread), and halt every
    # helper now (from the clock's watch or from `stop`, in another thread, so it only raises
    # flags that the helpers read).
    cdef int _resize_helpers(self) except -1
    cdef int _prepare_helper(self, int index) except -1
    cdef void _run_helper(self, int index) noexcept nogil
    cdef void _halt_helpers(self) noexcept nogil

    # For the subclasses and the pool.
    cdef int _make_helpers(self, int count) except -1
    cdef void _free_helpers(self)
    cdef int _helpers_use_network(self) except -1
    cdef void _watch_clock(self) noexcept nogil
    cdef void _run_with_helpers(self) noexcept nogil
    cdef int64_t _elapsed(self)
    cdef void _emit(self, object info)
    cdef object _pv_line(self, int depth, int seldepth, int multipv, int value, object bound,
                         unsigned long long nodes, list pv)
