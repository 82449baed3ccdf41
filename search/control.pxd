# How the UCI thread steers a search that runs without the GIL: stop, ponderhit,
# infinite, and the moment the clock starts.  Both searchers share it.

from libc.stdint cimport int64_t

cdef struct SearchSignals:
    # Written by the controlling thread (with the GIL), read by the search without it.
    int stop_requested
    int pondering        # cleared by ponderhit
    int infinite         # cleared by stop
    int64_t start_ms        # the search of this move started here (`go`, or `go ponder`)
    int64_t clock_start_ms  # our clock runs from here: start_ms, or the ponderhit


cdef class SearchControl:
    cdef SearchSignals signals
    cdef object lock
    cdef bint armed              # a search is about to start: stop/ponderhit apply to it
    cdef bint armed_start        # ... and its clock runs from armed_start_ms (its `go` arrived then)
    cdef int64_t armed_start_ms
    cdef bint running
    cdef bint stop_pending
    cdef bint ponderhit_pending

    # Called by a searcher's search() with the GIL, around its `with nogil:` block.
    cdef void begin(self, bint infinite, bint ponder)
    cdef void end(self)


# What a search tells its Python face when it reports progress (with the GIL).
cdef enum ReportKind:
    REPORT_ITERATION = 0   # a finished iteration (alpha-beta) or a periodic snapshot (MCTS)
    REPORT_CURRMOVE = 1    # the root move being searched now, in a long iteration
    REPORT_FINAL = 2       # the search has ended: the last snapshot

# Hand progress to the Python searcher behind `reporter` (its `_report(kind, depth)`);
# an exception there must never reach the search.  A NULL reporter (a helper thread)
# reports nothing and never takes the GIL.
cdef void report_progress(void* reporter, ReportKind kind, int depth) noexcept nogil

# In `go infinite` and while pondering the answer waits for stop (or ponderhit).
cdef void wait_until_released(SearchSignals* signals) noexcept nogil
