"""The base of both searchers' Python faces: ``Searcher``.

``search()`` blocks and releases the GIL while it thinks, so the UCI loop runs it in a
thread and stays free to answer ``isready`` and ``stop``.  Progress comes back through a
callback taking the records of ``search.info``.  ``AlphaBetaSearcher`` and
``MCTSSearcher`` fill in the C state and the result; everything else is here, the helper
threads of a search with Threads > 1 included: they live in a ThreadPool between searches.
"""

import os

cimport cython
from cpython.mem cimport PyMem_Malloc, PyMem_Free
from cpython.pythread cimport (
    PyThread_allocate_lock, PyThread_free_lock, PyThread_acquire_lock, PyThread_release_lock, WAIT_LOCK,
    NOWAIT_LOCK, PyLockStatus, PY_LOCK_ACQUIRED,
)
from libc.stdint cimport int64_t
from libc.string cimport memset
from search.board.types cimport Move, MoveList, MOVE_NONE, MATE, MATE_IN_MAX_PLY, MAX_PLY
from search.board.board cimport Board
from search.board.movegen cimport generate_legal, parse_uci_move
from search.board.position cimport Position
from search.control cimport SearchControl, SearchSignals, wait_until_released
from search.state cimport SearchState
from search.timeman cimport TimeBudget, set_time_budget, elapsed_ms
from search.thread_pool cimport ThreadPool
from eval.evaluator cimport evaluator_use, evaluator_free
from eval.nnue cimport Network
from search.timeman import game_ply

from search.info import SearchInfo, SearchResult
from search.limits import MAX_DEPTH, MAX_HASH_MB, SearchLimits, checked_thread_count
from search.param_table import checked_params

cdef extern from "clock.h" nogil:
    int64_t now_ms "kestrel_now_ms"()
    int load_flag "kestrel_load_flag"(int* flag)

cdef extern from "pythread.h" nogil:
    PyLockStatus PyThread_acquire_lock_timed(PyThread_type_lock lock, long long microseconds, int intr_flag)

cdef enum:
    PONDER_WATCH_MS = 5     # while pondering the watch looks again this often: ponderhit restarts the clock

if MAX_DEPTH > MAX_PLY - 8:
    raise ImportError(f"search.limits.MAX_DEPTH ({MAX_DEPTH}) must leave the C search room below MAX_PLY ({MAX_PLY})")


def uci_score(int value):
    """('mate', N) in moves for mate scores, else ('cp', value)."""
    if value >= MATE_IN_MAX_PLY:
        return ("mate", (MATE - value + 1) // 2)
    if value <= -MATE_IN_MAX_PLY:
        return ("mate", -((MATE + value) // 2))
    return ("cp", value)


def with_switches(values: dict, switches: dict) -> dict:
    """`values` (a SearchConfig read as a dict) with the named switches set; a name that is not
    one of its fields is a TypeError (both searchers' configure())."""
    unknown = sorted(set(switches) - set(values))
    if unknown:
        raise TypeError(f"configure() has no switch {', '.join(unknown)}")
    values.update({name: bool(on) for name, on in switches.items()})
    return values


cdef SearchState* new_search_state() except NULL:
    cdef SearchState* state = <SearchState*>PyMem_Malloc(sizeof(SearchState))
    if state == NULL:
        raise MemoryError("cannot allocate a search thread's state")
    memset(state, 0, sizeof(SearchState))
    return state


cdef void free_search_state(SearchState* state) noexcept:
    if state != NULL:
        evaluator_free(&state.evaluator)
    PyMem_Free(state)


def available_cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


cdef void run_pool_task(void* owner, int index) noexcept nogil:
    """Thread `index` of a Searcher's pool: helper `index`, or (the last) the clock's watch.
    The Searcher closes its pool before it goes, so `owner` is alive while a task runs."""
    if index < (<Searcher>owner).helper_count:
        (<Searcher>owner)._run_helper(index)
    else:
        (<Searcher>owner)._watch_clock()


# A searcher in a reference cycle (its on_info callback reaching back to its owner) is freed by
# the garbage collector, which would first clear its object fields: __dealloc__ then found its
# pool gone.  Not cleared, the pool is still there to close its threads.
@cython.no_gc_clear
cdef class Searcher:
    """What both searchers share: options, stop/ponderhit, helper threads, and the shape of a search."""

    def __cinit__(self, *args, **kwargs):
        # Made here, before the subclasses' __cinit__, which point their C state at its signals.
        self.control = SearchControl()
        self.helpers = NULL
        self.helper_count = 0
        self.helper_name = "kestrel-helper"
        # The threads hold the pool, never the searcher: a searcher nobody holds is freed, and
        # closes its pool then.
        self.pool = ThreadPool()
        self.watch_limit_ms = 0
        self.watch_cancel = PyThread_allocate_lock()
        if self.watch_cancel == NULL:
            raise MemoryError("cannot allocate a lock")
        PyThread_acquire_lock(self.watch_cancel, WAIT_LOCK)
        self.network = None

    def __init__(self, hash_mb: int = 16) -> None:
        self.multipv = 1
        self.move_overhead = 50
        self.on_info = None
        self.time_plan = None
        self.set_params({})
        self.set_hash(hash_mb)

    def __dealloc__(self):
        self._free_helpers()
        if self.watch_cancel != NULL:
            PyThread_free_lock(self.watch_cancel)

    # ------------------------------------------------------------ options

    def set_hash(self, megabytes: int) -> None:
        """Size the searcher's tables (1 MB .. MAX_HASH_MB); this clears them."""
        mb = max(1, min(int(megabytes), MAX_HASH_MB))
        self._resize(mb)
        self.hash_mb = mb

    @property
    def hash_size_mb(self) -> int:
        return self.hash_mb

    def set_params(self, values: dict) -> None:
        """Use the search parameters `values` (names of search/param_table.py; the rest at their
        defaults).  ValueError for an unknown name or a value out of its range."""
        self.search_params = checked_params(values)
        self._load_params()

    @property
    def params(self) -> dict:
        """The search parameters in use (a copy)."""
        return dict(self.search_params)

    def clear(self) -> None:
        """Forget everything learnt (for ucinewgame)."""
        raise NotImplementedError

    def hashfull(self) -> int:
        """Table use in per mille."""
        return 0

    def set_network(self, network: object) -> None:
        """Evaluate with `network` (an eval.nnue.Network) in every thread, or with the weighted
        evaluation when it is None.  A change of evaluation clears the searcher (its tables keep
        static evaluations).  Not while a search runs."""
        if network is not None and not isinstance(network, Network):
            raise TypeError(f"set_network() takes an eval.nnue.Network or None, not {type(network).__name__}")
        if network is self.network:
            return
        self.network = network
        try:
            self._use_network()
            self._helpers_use_network()
        except MemoryError:
            # No thread may keep a pointer to a network the searcher does not hold.
            self.network = None
            self._use_network()
            self._helpers_use_network()
            self.clear()
            raise
        self.clear()

    def set_tablebase_probe(self, prober: object, probe_depth: int = 1, max_pieces: int = 0) -> None:
        """Probe Syzygy tables inside the tree through `prober` (fen -> WDL or None; None: no
        probes).  A searcher that does not probe inside its tree ignores this."""

    # ------------------------------------------------------------ helper threads

    @property
    def threads(self) -> int:
        """Search threads (1..MAX_THREADS): the main one and its helpers."""
        return self.helper_count + 1

    @threads.setter
    def threads(self, value: int) -> None:
        """Start (or join) helper threads to make `value` threads; they are parked until a
        search wakes them.  On failure (no memory, a thread that cannot start) the previous
        count is restored if it can be, else one thread is left, and the error is raised."""
        cdef int count = checked_thread_count(value)
        cdef int previous = self.helper_count
        if count - 1 == self.helper_count:
            return
        try:
            self._make_helpers(count - 1)
        except BaseException:
            try:
                self._make_helpers(previous)
            except BaseException:
                self._make_helpers(0)
            raise

    @property
    def helper_threads_started(self) -> int:
        """Threads the searcher has started so far, its helpers' and the clock's watch: a
        search wakes parked ones and starts none."""
        return self.pool.threads_started

    @property
    def helper_threads_alive(self) -> int:
        """Helper threads (and the clock's watch) alive now, parked between searches."""
        return sum(1 for thread in self.pool.threads if thread.is_alive())

    cdef int _make_helpers(self, int count) except -1:
        """Exactly `count` helpers with their states and parked threads (0: none); on failure
        there are none, and the error is raised."""
        cdef int i
        self._free_helpers()
        try:
            if count > 0:
                self.helpers = <SearchState**>PyMem_Malloc(count * sizeof(SearchState*))
                if self.helpers == NULL:
                    raise MemoryError("cannot allocate the search threads")
                for i in range(count):
                    self.helpers[i] = new_search_state()
                    self.helper_count = i + 1
                self._helpers_use_network()
            self._resize_helpers()
            if count > 0:
                self.pool.bind(<void*>self, run_pool_task, self.helper_name)
                # With more threads than cores the helpers step back for the main thread, which
                # keeps the clock (search/board/thread_priority.h); the watch never does.
                self.pool.resize(count + 1, count if count + 1 > available_cores() else 0)
        except BaseException:
            self._free_helpers()
            self._resize_helpers()
            raise
        return 0

    cdef void _free_helpers(self):
        cdef int i
        if self.pool is not None:
            self.pool.close()       # the threads first: none may run on a freed state
        for i in range(self.helper_count):
            free_search_state(self.helpers[i])
        PyMem_Free(self.helpers)
        self.helpers = NULL
        self.helper_count = 0

    cdef int _helpers_use_network(self) except -1:
        cdef int i
        for i in range(self.helper_count):
            evaluator_use(&self.helpers[i].evaluator, self.network)
        return 0

    cdef void _watch_clock(self) noexcept nogil:
        """The clock's watch: sleep until the hard limit (on our clock, never while pondering)
        and halt the helpers then, unless the search ends first (`watch_cancel` released).
        The main thread, which keeps the clock itself, then has the cores to see the time."""
        cdef SearchSignals* signals = &self.control.signals
        cdef int64_t left
        while True:
            if load_flag(&signals.pondering):
                left = PONDER_WATCH_MS
            else:
                left = signals.clock_start_ms + self.watch_limit_ms - now_ms()
                if left <= 0:
                    self._halt_helpers()
                    return
            if left > 1000:
                left = 1000     # a long think: look again each second (some platforms cap a lock's wait)
            if PyThread_acquire_lock_timed(self.watch_cancel, left * 1000, 0) == PY_LOCK_ACQUIRED:
                return

    # ------------------------------------------------------------ control from another thread

    def arm(self, since_ms: int | None = None) -> None:
        """Announce the next search (call before starting its thread): a stop or
        ponderhit sent before it begins then applies to it, and one sent after it
        has ended is dropped.  `since_ms`: its `go` arrived that many ms ago, and its
        clock runs from then (None: from when the search starts)."""
        self.control.arm(since_ms)

    def stop(self) -> None:
        """Finish the running (or armed) search now; returns at once.  The helpers are halted
        here, so that the main thread has the cores to see the stop, however many there are."""
        if self.control.stop() and self.helper_count > 0:
            with nogil:
                self._halt_helpers()

    def ponderhit(self) -> None:
        """The opponent played the expected move: the clock counts from now."""
        self.control.ponderhit()

    # ------------------------------------------------------------ the search

    def search(self, Position position not None, limits=None, on_info=None):
        """Search `position` within `limits` (a SearchLimits); blocks until done or stopped.

        `on_info` receives SearchInfo, CurrentMove and InfoString records from the
        search thread.  Returns a SearchResult; '0000' when there is no legal move."""
        cdef Board* root = position.board
        cdef MoveList moves
        cdef TimeBudget budget
        cdef Move m
        cdef int i
        if limits is None:
            limits = SearchLimits()
        generate_legal(root, &moves)
        if moves.count == 0:
            self._no_legal_move()
            return SearchResult("0000", None, ("mate", 0) if root.checkers else ("cp", 0), 0, 0, [],
                                -MATE if root.checkers else 0)
        allowed = []
        for text in limits.searchmoves or []:
            m = parse_uci_move(root, str(text))
            if m != MOVE_NONE and m not in allowed:
                allowed.append(m)
        set_time_budget(&budget, limits, position.turn, game_ply(position.fullmove_number, position.turn),
                        self.move_overhead, self.search_params)
        self.time_plan = (budget.optimum_ms, budget.maximum_ms) if budget.timed else None
        self._prepare(root, allowed, budget, limits)
        for i in range(self.helper_count):
            self._prepare_helper(i)
        # The watch is only needed for helpers that could keep the main thread off the cores.
        self.watch_limit_ms = budget.maximum_ms if (budget.timed and self.helper_count > 0) else 0
        self.on_info = on_info
        self.control.begin(limits.infinite, limits.ponder)
        try:
            with nogil:
                self._run_with_helpers()
        finally:
            self.control.end()
            self.on_info = None
        return self._finish()

    cdef void _run_with_helpers(self) noexcept nogil:
        """Wake the helpers (and the watch), run the main search, wait for stop or ponderhit
        when the protocol says so, then for every thread to be parked again."""
        cdef int i, count = self.helper_count
        cdef bint watched = self.watch_limit_ms > 0
        if watched:
            self.pool.start(count)
        self.pool.start_all(count)
        self._run()
        wait_until_released(&self.control.signals)
        if watched:
            PyThread_release_lock(self.watch_cancel)
        for i in range(count):
            self.pool.finish(i)
        if watched:
            self.pool.finish(count)
            # Held again for the next search (the watch took it, or it was released just now).
            PyThread_acquire_lock(self.watch_cancel, NOWAIT_LOCK)

    # ------------------------------------------------------------ for the subclasses

    cdef int _resize(self, int megabytes) except -1:
        raise NotImplementedError

    cdef int _load_params(self) except -1:
        return 0

    cdef int _prepare(self, Board* root, list allowed, TimeBudget budget, object limits) except -1:
        raise NotImplementedError

    cdef void _run(self) noexcept nogil:
        pass

    cdef object _finish(self):
        raise NotImplementedError

    cdef void _no_legal_move(self):
        pass

    cdef int _use_network(self) except -1:
        raise NotImplementedError

    cdef int _resize_helpers(self) except -1:
        return 0

    cdef int _prepare_helper(self, int index) except -1:
        raise NotImplementedError

    cdef void _run_helper(self, int index) noexcept nogil:
        pass

    cdef void _halt_helpers(self) noexcept nogil:
        pass

    cdef int64_t _elapsed(self):
        cdef int64_t elapsed = elapsed_ms(&self.control.signals)
        return elapsed if elapsed > 0 else 0

    cdef void _emit(self, object info):
        if self.on_info is not None:
            self.on_info(info)

    cdef object _pv_line(self, int depth, int seldepth, int multipv, int value, object bound,
                         unsigned long long nodes, list pv):
        """A SearchInfo with the clock, speed and table use filled in."""
        elapsed = self._elapsed()
        nps = nodes * 1000 // elapsed if elapsed > 0 else nodes * 1000
        return SearchInfo(depth=depth, seldepth=max(seldepth, depth), multipv=multipv, score=uci_score(value),
                          nodes=nodes, nps=nps, hashfull=self.hashfull(), time=elapsed, pv=pv, bound=bound)
