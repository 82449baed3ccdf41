"""The Python face of the alpha-beta searcher: ``AlphaBetaSearcher``.

Iterative-deepening PVS (search/alphabeta.pyx) over a private copy of the position;
the shape of a search, stop and ponderhit come from ``search.searcher.Searcher``.

With ``threads`` > 1 it is a Lazy SMP search: helper threads search the same root
with their own state (stacks, histories) and share the transposition table, whose
slots are safe to read while another thread writes (tt.pxd).  Every thread runs
without the GIL; the main thread reports and decides the move.
"""

import dataclasses

from libc.string cimport memset, memcpy
from libc.stdint cimport int64_t
from search.board.types cimport MoveList, VALUE_INFINITE
from search.board.board cimport Board, move_to_uci, drop_old_history
from search.board.movegen cimport generate_legal
from search.tt cimport (
    TranspositionTable, tt_resize, tt_free, tt_clear, tt_hashfull, tt_new_search, BOUND_LOWER, BOUND_UPPER,
)
from search.state cimport SearchState, RootMove, adopted_config
from search.alphabeta cimport iterative_deepening
from search.correction cimport clear_corrections
from search.control cimport SearchSignals, REPORT_CURRMOVE
from search.timeman cimport TimeBudget
from search.searcher cimport Searcher, new_search_state, free_search_state
from eval.evaluator cimport evaluator_use
from search.params cimport load_search_params

from search.info import CurrentMove, SearchResult
from search.limits import MAX_DEPTH, MAX_MULTIPV

cdef extern from "clock.h" nogil:
    int64_t now_ms "kestrel_now_ms"()
    void store_flag "kestrel_store_flag"(int* flag, int value)
    int load_flag "kestrel_load_flag"(int* flag)


cdef void clear_learning(SearchState* s) noexcept nogil:
    """Forget what a thread learnt across searches (histories, killers, counter moves, corrections)."""
    memset(s.history, 0, sizeof(s.history))
    memset(s.killers, 0, sizeof(s.killers))
    memset(s.counter_moves, 0, sizeof(s.counter_moves))
    clear_corrections(s)
from search.searcher import uci_score, with_switches


cdef class AlphaBetaSearcher(Searcher):
    """Iterative-deepening PVS with a transposition table, over a private copy of the position."""

    cdef SearchState* state              # the main thread's (the helpers' are the Searcher's)
    cdef SearchSignals helper_signals    # the helpers stop when the main thread is done
    cdef TranspositionTable tt
    cdef object tablebase_prober         # kept alive while the C state points at it

    def __cinit__(self, *args, **kwargs):
        self.state = new_search_state()
        self.state.signals = &self.control.signals
        memset(&self.helper_signals, 0, sizeof(SearchSignals))
        memset(&self.tt, 0, sizeof(TranspositionTable))     # no table yet

    def __init__(self, hash_mb: int = 16, threads: int = 1) -> None:
        self.configure()
        Searcher.__init__(self, hash_mb)
        self.threads = threads

    def __dealloc__(self):
        tt_free(&self.tt)
        free_search_state(self.state)

    cdef int _resize(self, int megabytes) except -1:
        if tt_resize(&self.tt, megabytes) != 0:
            raise MemoryError(f"cannot allocate a {megabytes} MB hash table")
        return 0

    cdef int _load_params(self) except -1:
        return load_search_params(&self.state.params, self.search_params)

    cdef int _use_network(self) except -1:
        return evaluator_use(&self.state.evaluator, self.network)

    def clear(self) -> None:
        """Forget everything learnt: hash table, history, killers (for ucinewgame)."""
        cdef int i
        tt_clear(&self.tt)
        clear_learning(self.state)
        for i in range(self.helper_count):
            clear_learning(self.helpers[i])

    def configure(self, **switches: bool) -> None:
        """Switch search techniques on or off by name (SearchConfig's fields), to measure what
        each is worth; a switch not named is as adopted_config() has it (on).  An unknown name
        is a TypeError."""
        self.state.config = with_switches(adopted_config(), switches)    # the struct, read as a dict

    @property
    def switches(self) -> dict[str, bool]:
        """Every switch of configure() as it stands."""
        return {name: bool(on) for name, on in (<dict>self.state.config).items()}

    def hashfull(self) -> int:
        return tt_hashfull(&self.tt)

    def set_tablebase_probe(self, prober: object, probe_depth: int = 1, max_pieces: int = 0) -> None:
        """Probe WDL tables inside the tree (search/tbprobe.pxd): positions right after a capture or
        pawn move with at most `max_pieces` men, at a remaining depth of `probe_depth` or more."""
        self.tablebase_prober = prober if (prober is not None and max_pieces > 0) else None
        self.state.tb.prober = <void*>self.tablebase_prober if self.tablebase_prober is not None else NULL
        self.state.tb.probe_depth = max(1, int(probe_depth))
        self.state.tb.max_pieces = max(0, int(max_pieces))

    # ------------------------------------------------------------ one search

    cdef int _prepare(self, Board* root, list allowed, TimeBudget budget, object limits) except -1:
        cdef SearchState* s = self.state
        cdef MoveList moves
        cdef int i, count = 0
        memcpy(&s.board, root, sizeof(Board))
        drop_old_history(&s.board, 300)
        # Clear the leftovers of the previous search (the history tables are kept).
        memset(s.killers, 0, sizeof(s.killers))
        memset(s.move_stack, 0, sizeof(s.move_stack))
        generate_legal(&s.board, &moves)
        for i in range(moves.count):
            if allowed and moves.moves[i] not in allowed:
                continue
            s.root_moves[count].move = moves.moves[i]
            s.root_moves[count].pv[0] = moves.moves[i]
            s.root_moves[count].pv_length = 1
            s.root_moves[count].score = -VALUE_INFINITE
            s.root_moves[count].seldepth = 0
            s.root_moves[count].nodes = 0
            count += 1
        s.root_count = count
        s.multipv = max(1, min(int(self.multipv), MAX_MULTIPV))
        s.time = budget
        s.node_limit, s.depth_limit, s.mate_limit = limits.fixed_limits()
        s.soft_node_limit = max(0, int(limits.soft_nodes)) if limits.soft_nodes else 0
        if s.mate_limit and not s.depth_limit:
            s.depth_limit = min(2 * s.mate_limit + 8, MAX_DEPTH)
        s.tt = &self.tt
        s.reporter = <void*>self
        s.last_currmove_report_ms = 0
        s.tb.hits = 0
        tt_new_search(&self.tt)
        self.helper_signals.stop_requested = 0
        self.helper_signals.start_ms = now_ms()
        return 0

    cdef int _prepare_helper(self, int index) except -1:
        """The main thread's root and limits, no clock: the main thread stops the helpers."""
        cdef SearchState* s = self.state
        cdef SearchState* h = self.helpers[index]
        memcpy(&h.board, &s.board, sizeof(s.board))
        memset(h.killers, 0, sizeof(h.killers))
        memset(h.move_stack, 0, sizeof(h.move_stack))
        memcpy(h.root_moves, s.root_moves, s.root_count * sizeof(RootMove))
        h.root_count = s.root_count
        h.multipv = 1
        h.time.timed = False
        h.node_limit = 0
        h.soft_node_limit = 0
        h.depth_limit, h.mate_limit = s.depth_limit, s.mate_limit
        h.tt = &self.tt
        h.signals = &self.helper_signals
        h.reporter = NULL
        h.thread_index = index + 1
        h.config = s.config
        h.params = s.params
        h.tb = s.tb
        h.tb.hits = 0
        # A helper halted before it starts keeps these: they must not be the last search's.
        h.nodes = 0
        h.completed_depth = 0
        return 0

    cdef void _run_helper(self, int index) noexcept nogil:
        # A helper woken after the halt (more threads than cores: it waited for one) must not
        # start, as its search would clear its `stopped` and run 1024 nodes before it looks.
        if not load_flag(&self.helper_signals.stop_requested):
            iterative_deepening(self.helpers[index])

    cdef void _halt_helpers(self) noexcept nogil:
        """The flag every helper looks at each 1024 nodes, and its own `stopped`, which it looks
        at every node: with many threads per core, 1024 nodes each would keep the cores busy
        for a long time after the stop."""
        cdef int i
        store_flag(&self.helper_signals.stop_requested, 1)
        for i in range(self.helper_count):
            self.helpers[i].stopped = True

    cdef void _run(self) noexcept nogil:
        iterative_deepening(self.state)
        store_flag(&self.helper_signals.stop_requested, 1)

    cdef list _pv_of(self, SearchState* s, int index=0):
        cdef RootMove* rm = &s.root_moves[index]
        # Moves are printed against the board they are played on (castling notation).
        return [move_to_uci(&s.board, rm.pv[i]) for i in range(rm.pv_length)]

    cdef unsigned long long _total_nodes(self):
        cdef unsigned long long total = self.state.nodes
        cdef int i
        for i in range(self.helper_count):
            total += self.helpers[i].nodes
        return total

    cdef unsigned long long _total_tbhits(self):
        cdef unsigned long long total = self.state.tb.hits
        cdef int i
        for i in range(self.helper_count):
            total += self.helpers[i].tb.hits
        return total

    cdef object _finish(self):
        cdef SearchState* s = self.state
        cdef SearchState* h
        cdef int i
        # A helper that completed a deeper iteration without a worse score knows more.
        for i in range(self.helper_count):
            h = self.helpers[i]
            if (h.completed_depth > s.completed_depth and h.root_moves[0].score > -VALUE_INFINITE
                    and h.root_moves[0].score >= s.root_moves[0].score):
                s = h
        pv = self._pv_of(s)
        score = s.root_moves[0].score if s.root_moves[0].score > -VALUE_INFINITE else 0
        return SearchResult(pv[0], pv[1] if len(pv) > 1 else None, uci_score(score),
                            s.completed_depth, self._total_nodes(), pv, score)

    def _report(self, int kind, int depth) -> None:
        """Called from the search with the GIL: the records of this iteration (or the current move)."""
        cdef SearchState* s = self.state
        cdef RootMove* rm
        cdef int i
        if self.on_info is None:
            return
        if kind == REPORT_CURRMOVE:
            self._emit(CurrentMove(depth=depth, move=move_to_uci(&s.board, s.move_stack[0]),
                                   number=s.currmove_number))
            return
        for i in range(min(s.multipv, s.root_count)):
            rm = &s.root_moves[i]
            if rm.score == -VALUE_INFINITE:
                continue
            bound = "lowerbound" if rm.bound == BOUND_LOWER else ("upperbound" if rm.bound == BOUND_UPPER else None)
            info = self._pv_line(depth, rm.seldepth, i + 1, rm.score, bound, self._total_nodes(), self._pv_of(s, i))
            if self.tablebase_prober is not None:
                info = dataclasses.replace(info, tbhits=self._total_tbhits())
            self._emit(info)
