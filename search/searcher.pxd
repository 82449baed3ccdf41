# The one front both searchers share: what the UCI loop (or a test) drives.
#
# `Searcher.search()` is a template: it checks for a legal move, turns `go` into
# numbers, asks the subclass to prepare its C state (`_prepare`), runs the subclass's
# C search without the GIL (`_run`), waits for stop/ponderhit when the protocol says
# so, and asks the subclass for the result (`_finish`).  Progress comes back as typed
# records (search/info.py) through the subclass's `_report`.

from libc.stdint cimport int64_t
from search.board.board cimport Board
from search.control cimport SearchControl
from search.timeman cimport TimeBudget


cdef class Searcher:
    cdef public int multipv          # principal variations to report (1..MAX_MULTIPV)
    cdef public int move_overhead    # ms kept back per move for the GUI and the pipe
    cdef SearchControl control       # stop / ponderhit / infinite, shared with the C search
    cdef object on_info              # the caller's report callback, set only while a search runs
    cdef int hash_mb
    cdef dict search_params          # the checked table of search/param_table.py in use
    cdef readonly object time_plan   # (optimum_ms, maximum_ms) the last `go` planned, None if untimed

    # What each searcher supplies.
    cdef int _resize(self, int megabytes) except -1
    cdef int _load_params(self) except -1
    cdef int _prepare(self, Board* root, list allowed, TimeBudget budget, object limits) except -1
    cdef void _run(self) noexcept nogil
    cdef object _finish(self)
    cdef void _no_legal_move(self)

    # Shared helpers for the subclasses.
    cdef int64_t _elapsed(self)
    cdef void _emit(self, object info)
    cdef object _pv_line(self, int depth, int seldepth, int multipv, int value, object bound,
                         unsigned long long nodes, list pv)
