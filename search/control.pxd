# How the UCI thread steers a search that runs without the GIL: stop, ponderhit,
# infinite, and the moment the clock starts.  Both searchers share it.

from libc.stdint cimport int64_t

cdef struct SearchSignals:
    # Written by the controlling thread (with the GIL), read by the search without it.
    int stop_requested
    int pondering        # cleared by ponderhit
    int infinite         # cleared by stop
    int64_t start_ms     # the clock of this move starts here (moved by ponderhit)


cdef class SearchControl:
    cdef SearchSignals signals
    cdef object lock
    cdef bint armed              # a search is about to start: stop/ponderhit apply to it
    cdef bint running
    cdef bint stop_pending
    cdef bint ponderhit_pending

    # Called by a searcher's search() with the GIL, around its `with nogil:` block.
    cdef void begin(self, bint infinite, bint ponder)
    cdef void end(self)
