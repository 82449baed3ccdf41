"""The base of both searchers' Python faces: ``Searcher``.

``search()`` blocks and releases the GIL while it thinks, so the UCI loop runs it in a
thread and stays free to answer ``isready`` and ``stop``.  Progress comes back through a
callback taking the records of ``search.info``.  ``AlphaBetaSearcher`` and
``MCTSSearcher`` fill in the C state and the result; everything else is here.
"""

from libc.stdint cimport int64_t
from search.board.types cimport Move, MoveList, MOVE_NONE, MATE, MATE_IN_MAX_PLY, MAX_PLY
from search.board.board cimport Board
from search.board.movegen cimport generate_legal, parse_uci_move
from search.board.position cimport Position
from search.control cimport SearchControl, wait_until_released
from search.timeman cimport TimeBudget, set_time_budget, elapsed_ms
from search.timeman import game_ply

from search.info import SearchInfo, SearchResult
from search.limits import MAX_DEPTH, MAX_HASH_MB, SearchLimits
from search.param_table import checked_params

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


cdef class Searcher:
    """What both searchers share: options, stop/ponderhit, and the shape of a search."""

    def __cinit__(self, *args, **kwargs):
        # Made here, before the subclasses' __cinit__, which point their C state at its signals.
        self.control = SearchControl()

    def __init__(self, hash_mb: int = 16) -> None:
        self.multipv = 1
        self.move_overhead = 50
        self.on_info = None
        self.time_plan = None
        self.set_params({})
        self.set_hash(hash_mb)

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

    def set_tablebase_probe(self, prober: object, probe_depth: int = 1, max_pieces: int = 0) -> None:
        """Probe Syzygy tables inside the tree through `prober` (fen -> WDL or None; None: no
        probes).  A searcher that does not probe inside its tree ignores this."""

    # ------------------------------------------------------------ control from another thread

    def arm(self) -> None:
        """Announce the next search (call before starting its thread): a stop or
        ponderhit sent before it begins then applies to it, and one sent after it
        has ended is dropped."""
        self.control.arm()

    def stop(self) -> None:
        """Finish the running (or armed) search now; returns at once."""
        self.control.stop()

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
        self.on_info = on_info
        self.control.begin(limits.infinite, limits.ponder)
        try:
            with nogil:
                self._run()
                wait_until_released(&self.control.signals)
        finally:
            self.control.end()
            self.on_info = None
        return self._finish()

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
