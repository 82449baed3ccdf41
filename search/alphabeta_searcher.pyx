"""The Python face of the alpha-beta searcher: ``AlphaBetaSearcher``.

Iterative-deepening PVS (search/alphabeta.pyx) over a private copy of the position;
the shape of a search, stop and ponderhit come from ``search.searcher.Searcher``.
"""

from cpython.mem cimport PyMem_Malloc, PyMem_Free
from libc.string cimport memset, memcpy
from search.board.types cimport MoveList, VALUE_INFINITE
from search.board.board cimport Board, move_to_uci, drop_old_history
from search.board.movegen cimport generate_legal
from search.tt cimport TranspositionTable, tt_resize, tt_free, tt_clear, tt_hashfull, BOUND_LOWER, BOUND_UPPER
from search.state cimport SearchState, RootMove
from search.alphabeta cimport iterative_deepening
from search.control cimport REPORT_CURRMOVE
from search.timeman cimport TimeBudget
from search.searcher cimport Searcher

from search.info import CurrentMove, SearchResult
from search.limits import MAX_DEPTH, MAX_MULTIPV
from search.searcher import uci_score


cdef class AlphaBetaSearcher(Searcher):
    """Iterative-deepening PVS with a transposition table, over a private copy of the position."""

    cdef SearchState* state
    cdef TranspositionTable tt

    def __cinit__(self, *args, **kwargs):
        self.state = <SearchState*>PyMem_Malloc(sizeof(SearchState))
        if self.state == NULL:
            raise MemoryError()
        memset(self.state, 0, sizeof(SearchState))
        self.state.signals = &self.control.signals
        self.tt.entries = NULL

    def __init__(self, hash_mb: int = 16) -> None:
        self.configure()
        Searcher.__init__(self, hash_mb)

    def __dealloc__(self):
        tt_free(&self.tt)
        PyMem_Free(self.state)

    cdef int _resize(self, int megabytes) except -1:
        if tt_resize(&self.tt, megabytes) != 0:
            raise MemoryError(f"cannot allocate a {megabytes} MB hash table")
        return 0

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
            count += 1
        s.root_count = count
        s.multipv = max(1, min(int(self.multipv), MAX_MULTIPV))
        s.time = budget
        s.node_limit, s.depth_limit, s.mate_limit = limits.fixed_limits()
        if s.mate_limit and not s.depth_limit:
            s.depth_limit = min(2 * s.mate_limit + 8, MAX_DEPTH)
        s.tt = &self.tt
        s.reporter = <void*>self
        s.last_currmove_report_ms = 0
        return 0

    cdef void _run(self) noexcept nogil:
        iterative_deepening(self.state)

    cdef list _pv_of(self, int index):
        cdef RootMove* rm = &self.state.root_moves[index]
        # Moves are printed against the board they are played on (castling notation).
        return [move_to_uci(&self.state.board, rm.pv[i]) for i in range(rm.pv_length)]

    cdef object _finish(self):
        cdef SearchState* s = self.state
        pv = self._pv_of(0)
        score = s.root_moves[0].score if s.root_moves[0].score > -VALUE_INFINITE else 0
        return SearchResult(pv[0], pv[1] if len(pv) > 1 else None, uci_score(score),
                            s.completed_depth, s.nodes, pv, score)

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
            self._emit(self._pv_line(depth, rm.seldepth, i + 1, rm.score, bound, s.nodes, self._pv_of(i)))
