"""The Python face of the alpha-beta searcher: ``Searcher``.

``search()`` blocks and releases the GIL while it thinks, so the UCI loop runs it
in a thread and stays free to answer ``isready`` and ``stop``.  Progress comes back
through a callback taking a dict (see ``_report``).
"""

from cpython.mem cimport PyMem_Malloc, PyMem_Free
from libc.stdint cimport int64_t, uint64_t
from libc.string cimport memset, memcpy
from search.board.types cimport Move, MoveList, MAX_PLY, MATE, MATE_IN_MAX_PLY, MOVE_NONE, VALUE_INFINITE
from search.board.board cimport Board, move_to_uci, drop_old_history
from search.board.movegen cimport generate_legal, parse_uci_move
from search.tt cimport (
    TranspositionTable, tt_resize, tt_free, tt_clear, tt_hashfull, BOUND_LOWER, BOUND_UPPER,
)
from search.state cimport SearchState, RootMove
from search.alphabeta cimport iterative_deepening
from search.board.position cimport Position
from search.control cimport SearchControl

from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Tuple

from search.limits import SearchLimits
from search.timeman import search_bounds

cdef extern from "clock.h" nogil:
    int64_t now_ms "kestrel_now_ms"()

MAX_HASH_MB = 4096
MAX_MULTIPV = 64


@dataclass
class SearchResult:
    """The outcome of one search."""

    best_move: str
    ponder_move: Optional[str]
    score: Tuple[str, int]          # ('cp', centipawns) or ('mate', moves; negative when mated)
    depth: int
    nodes: int
    pv: List[str] = field(default_factory=list)
    value: int = 0                  # the internal score: centipawns, or MATE - plies for mates


def uci_score(int value) -> Tuple[str, int]:
    """('mate', N) in moves for mate scores, else ('cp', value)."""
    if value >= MATE_IN_MAX_PLY:
        return ("mate", (MATE - value + 1) // 2)
    if value <= -MATE_IN_MAX_PLY:
        return ("mate", -((MATE + value) // 2))
    return ("cp", value)


cdef class Searcher:
    """Iterative-deepening PVS over a private copy of the position."""

    cdef SearchState* state
    cdef TranspositionTable tt
    cdef public int multipv
    cdef public int move_overhead
    cdef object on_info
    cdef SearchControl control
    cdef int hash_mb

    def __cinit__(self, *args, **kwargs):
        self.state = <SearchState*>PyMem_Malloc(sizeof(SearchState))
        if self.state == NULL:
            raise MemoryError()
        memset(self.state, 0, sizeof(SearchState))
        self.tt.entries = NULL

    def __init__(self, hash_mb: int = 16) -> None:
        self.multipv = 1
        self.move_overhead = 50
        self.control = SearchControl()
        self.state.signals = &self.control.signals
        self.on_info = None
        self.configure()
        self.set_hash(hash_mb)

    def __dealloc__(self):
        tt_free(&self.tt)
        PyMem_Free(self.state)

    def set_hash(self, megabytes: int) -> None:
        """Resize the transposition table (1 MB .. 4096 MB); this clears it."""
        mb = max(1, min(int(megabytes), MAX_HASH_MB))
        if tt_resize(&self.tt, mb) != 0:
            raise MemoryError(f"cannot allocate a {mb} MB hash table")
        self.hash_mb = mb

    @property
    def hash_size_mb(self) -> int:
        return self.hash_mb

    def clear(self) -> None:
        """Forget everything learnt: hash table, history, killers (for ucinewgame)."""
        tt_clear(&self.tt)
        memset(self.state.history, 0, sizeof(self.state.history))
        memset(self.state.killers, 0, sizeof(self.state.killers))
        memset(self.state.counter_moves, 0, sizeof(self.state.counter_moves))

    def configure(self, tt_cutoffs: bool = True, null_move: bool = True, late_move_reductions: bool = True,
                  internal_reduction: bool = True, reverse_futility: bool = True, futility: bool = True,
                  late_move_pruning: bool = True, see_pruning: bool = True, check_extension: bool = True,
                  quiescence: bool = True, aspiration: bool = True) -> None:
        """Switch search techniques on or off (all on by default)."""
        self.state.config.tt_cutoffs = tt_cutoffs
        self.state.config.null_move = null_move
        self.state.config.late_move_reductions = late_move_reductions
        self.state.config.internal_reduction = internal_reduction
        self.state.config.reverse_futility = reverse_futility
        self.state.config.futility = futility
        self.state.config.late_move_pruning = late_move_pruning
        self.state.config.see_pruning = see_pruning
        self.state.config.check_extension = check_extension
        self.state.config.quiescence = quiescence
        self.state.config.aspiration = aspiration

    def hashfull(self) -> int:
        return tt_hashfull(&self.tt)

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

    def search(self, Position position not None, limits: Optional[SearchLimits] = None,
               on_info: Optional[Callable[[Dict], None]] = None) -> SearchResult:
        """Search `position` within `limits`; blocks until done or stopped."""
        cdef SearchState* s = self.state
        cdef MoveList moves
        cdef int i, count
        cdef Move m
        if limits is None:
            limits = SearchLimits()
        memcpy(&s.board, position.board, sizeof(Board))
        drop_old_history(&s.board, 300)
        # Clear the leftovers of the previous search (the history tables are kept).
        memset(s.killers, 0, sizeof(s.killers))
        memset(s.move_stack, 0, sizeof(s.move_stack))

        generate_legal(&s.board, &moves)
        allowed = set()
        for text in limits.searchmoves or []:
            m = parse_uci_move(&s.board, str(text))
            if m != MOVE_NONE:
                allowed.add(m)
        count = 0
        for i in range(moves.count):
            if allowed and moves.moves[i] not in allowed:
                continue
            s.root_moves[count].move = moves.moves[i]
            s.root_moves[count].pv[0] = moves.moves[i]
            s.root_moves[count].pv_length = 1
            s.root_moves[count].score = -VALUE_INFINITE
            s.root_moves[count].seldepth = 0
            count += 1
        s.root_count = count
        s.multipv = max(1, min(int(self.multipv), MAX_MULTIPV))

        bounds = search_bounds(limits, position.turn, self.move_overhead)
        s.timed, s.soft_ms, s.hard_ms = bounds.timed, bounds.soft_ms, bounds.hard_ms
        s.fixed_time = bounds.fixed_time
        s.node_limit, s.depth_limit, s.mate_limit = bounds.nodes, bounds.depth, bounds.mate
        if s.mate_limit and not s.depth_limit:
            s.depth_limit = min(2 * s.mate_limit + 8, MAX_PLY - 8)
        s.tt = &self.tt
        s.reporter = <void*>self
        s.last_currmove_report_ms = 0
        self.on_info = on_info
        self.control.begin(limits.infinite, limits.ponder)
        try:
            with nogil:
                iterative_deepening(s)
        finally:
            self.control.end()
            self.on_info = None
        return self._result()

    cdef list _pv_of(self, int index):
        cdef RootMove* rm = &self.state.root_moves[index]
        # Moves are printed against the board they are played on (castling notation).
        return [move_to_uci(&self.state.board, rm.pv[i]) for i in range(rm.pv_length)]

    def _result(self) -> SearchResult:
        cdef SearchState* s = self.state
        if s.root_count == 0:
            return SearchResult("0000", None, ("mate", 0) if s.board.checkers else ("cp", 0), 0, s.nodes, [],
                                -MATE if s.board.checkers else 0)
        pv = self._pv_of(0)
        score = s.root_moves[0].score if s.root_moves[0].score > -VALUE_INFINITE else 0
        return SearchResult(pv[0], pv[1] if len(pv) > 1 else None, uci_score(score),
                            s.completed_depth, s.nodes, pv, score)

    def _report(self, int depth, int event) -> None:
        """Called from the search with the GIL: build info dicts for the callback."""
        cdef SearchState* s = self.state
        cdef int i
        if self.on_info is None:
            return
        elapsed = max(0, now_ms() - s.signals.start_ms)
        if event == 1:
            self.on_info({"currmove": move_to_uci(&s.board, s.move_stack[0]),
                          "currmovenumber": s.currmove_number, "depth": depth})
            return
        nps = s.nodes * 1000 // elapsed if elapsed > 0 else s.nodes * 1000
        lines = min(s.multipv, s.root_count)
        hashfull = tt_hashfull(&self.tt)
        for i in range(lines):
            rm = &s.root_moves[i]
            if rm.score == -VALUE_INFINITE:
                continue
            bound = None
            if rm.bound == BOUND_LOWER:
                bound = "lowerbound"
            elif rm.bound == BOUND_UPPER:
                bound = "upperbound"
            self.on_info({
                "depth": depth, "seldepth": max(rm.seldepth, depth), "multipv": i + 1,
                "score": uci_score(rm.score), "bound": bound, "nodes": s.nodes, "nps": nps,
                "hashfull": hashfull, "time": elapsed, "pv": self._pv_of(i),
            })
