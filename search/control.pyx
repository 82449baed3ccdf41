"""Stop and ponderhit for a search running in another thread, without races.

A stop is meant for one search: the one running, or the one the controller has
announced with ``arm()`` and is about to start.  A stop that arrives after that
search has returned is dropped, so it cannot cut the next search short.
"""

import threading

cdef extern from "clock.h" nogil:
    int64_t now_ms "kestrel_now_ms"()
    void sleep_ms "kestrel_sleep_ms"(int ms)
    int load_flag "kestrel_load_flag"(int* flag)
    void store_flag "kestrel_store_flag"(int* flag, int value)


cdef void report_progress(void* reporter, ReportKind kind, int depth) noexcept nogil:
    if reporter == NULL:
        return      # a helper thread of a parallel search: only the main thread reports
    with gil:
        try:
            (<object>reporter)._report(kind, depth)
        except BaseException:
            pass


cdef void wait_until_released(SearchSignals* signals) noexcept nogil:
    while (load_flag(&signals.infinite) or load_flag(&signals.pondering)) and not load_flag(&signals.stop_requested):
        sleep_ms(1)


cdef class SearchControl:

    def __cinit__(self):
        self.lock = threading.Lock()
        self.signals.stop_requested = 0
        self.signals.pondering = 0
        self.signals.infinite = 0
        self.signals.start_ms = now_ms()
        self.signals.clock_start_ms = self.signals.start_ms

    def arm(self, since_ms: int | None = None) -> None:
        """Announce a search about to start (from the thread that will later stop it).
        `since_ms`: its `go` arrived that many milliseconds ago, and its clock runs from
        then, whatever the search does before it starts (None: from its start)."""
        with self.lock:
            self.armed = True
            self.armed_start = since_ms is not None
            self.armed_start_ms = now_ms() - max(0, int(since_ms)) if since_ms is not None else 0
            self.stop_pending = False
            self.ponderhit_pending = False

    def stop(self) -> bool:
        """Finish the running or armed search now; ignored when there is none.  Whether
        there was one."""
        with self.lock:
            if not (self.running or self.armed):
                return False
            self.stop_pending = True
            store_flag(&self.signals.stop_requested, 1)
            store_flag(&self.signals.infinite, 0)
            return True

    def ponderhit(self) -> None:
        """The opponent played the expected move: our clock runs from now.  The time spent
        pondering counts towards the move's budget (start_ms stays); the hard limit, which
        guards the clock, is measured from now."""
        with self.lock:
            if not (self.running or self.armed):
                return
            self.ponderhit_pending = True
            self.signals.clock_start_ms = now_ms()
            store_flag(&self.signals.pondering, 0)

    cdef void begin(self, bint infinite, bint ponder):
        with self.lock:
            self.signals.start_ms = self.armed_start_ms if (self.armed and self.armed_start) else now_ms()
            if not (self.ponderhit_pending and self.armed_start):
                # (A ponderhit before a search whose clock started at its `go` keeps its own time.)
                self.signals.clock_start_ms = self.signals.start_ms
            self.signals.infinite = 1 if infinite else 0
            self.signals.pondering = 1 if (ponder and not self.ponderhit_pending) else 0
            self.signals.stop_requested = 0
            if self.stop_pending:
                self.signals.stop_requested = 1
                self.signals.infinite = 0
            self.armed = False
            self.armed_start = False
            self.running = True

    cdef void end(self):
        with self.lock:
            self.running = False
            self.armed = False
            self.armed_start = False
            self.stop_pending = False
            self.ponderhit_pending = False
            self.signals.stop_requested = 0
            self.signals.pondering = 0
            self.signals.infinite = 0
