"""The Python face of the Monte Carlo tree searcher: ``MCTSSearcher``.

The shape of a search, stop, ponderhit and the helper threads come from
``search.searcher.Searcher``, so the UCI loop drives it like the alpha-beta searcher.  Its own
settings (``selection``, ``c_puct``, ``fpu_reduction``, ``prior_temperature``, ``exploration``,
``leaf_mode``, ``leaf_depth``, ``leaf_depth_root``, ``value_model``, ``seed``, the switches of
``configure()``) have their names, ranges and defaults in search/mcts_settings.py; the tree
between searches (its pool, the root a search starts from, how it reads back as moves and
scores) is an ``MCTSTree`` (search/mcts_tree.pyx); the C search itself is search/mcts.pyx.

With ``threads`` > 1, helper threads grow the same tree as the main thread, each with its
own board and leaf-search state (the transposition table is shared); every thread runs
without the GIL, and the main one reports, keeps the clock and chooses the move.
"""

from cpython.mem cimport PyMem_Malloc, PyMem_Free
from libc.stdint cimport uint32_t, uint64_t
from libc.string cimport memset, memcpy
from search.board.types cimport Bitboard, Move, MoveList, MOVE_NONE
from search.board.movegen cimport generate_legal, parse_uci_move
from search.board.board cimport Board, move_to_uci, drop_old_history
from search.tt cimport tt_resize, tt_free, tt_clear, tt_new_search
from search.state cimport SearchState, adopted_config
from search.correction cimport clear_corrections
from search.mcts_pool cimport NODE_NONE
from search.mcts_state cimport (
    MCTSState, MCTSShared, LEAF_EVAL, LEAF_PLAYOUT, SELECT_PUCT, SELECT_UCT, VIRTUAL_LOSS,
    STOP_NONE, STOP_SIGNAL, STOP_PROVEN, STOP_LIMIT, STOP_TIME,
    VERIFY_NONE, VERIFY_KEPT, VERIFY_OVERRULED, VERIFY_CUT_OFF, VERIFY_DECISIVE,
    REFRESH_MAX_DEPTH, ROOT_REFRESH_EXTRA, ROOT_REFRESH_MAX_DEPTH,
)
from search.mcts_select cimport best_child
from search.mcts_expand cimport root_search_move_of, root_search_depth_of, root_search_score_of
from search.mcts cimport shared_reset, mcts_search, mcts_helper
from search.mcts_tree cimport MCTSTree
from search.mcts_value cimport VALUE_MODEL_LOGISTIC, VALUE_MODEL_WDL, board_material
from search.mcts_priors cimport (
    move_priors, move_features, table_move, threatened_pieces, prior_weight_table,
    PRIOR_FEATURE_COUNT, FEATURE_TT_MOVE, FEATURE_CAPTURE, FEATURE_CAPTURE_GAIN, FEATURE_CAPTURE_LOSS,
    FEATURE_QUIET_LOSS, FEATURE_QUEEN_PROMOTION, FEATURE_UNDER_PROMOTION, FEATURE_CHECK, FEATURE_HISTORY,
    FEATURE_ESCAPE, FEATURE_PSQT, FEATURE_PAWN_THREAT, FEATURE_CASTLING, FEATURE_RECAPTURE, FEATURE_PIECE_THREAT,
    FEATURE_IGNORED_THREAT,
)
from search.board.position cimport Position
from search.timeman cimport TimeBudget
from search.searcher cimport Searcher, new_search_state, free_search_state
from eval.evaluator cimport evaluator_use
from search.params cimport load_search_params

cdef extern from "clock.h" nogil:
    void store_flag "kestrel_store_flag"(int* flag, int value)

from typing import Dict, List, Optional, Tuple

from search.info import InfoString, SearchResult
from search.limits import MAX_MULTIPV
# uci_engine/core.py reads OWN_SWITCHES here, from the searcher's module.
from search.mcts_settings import (
    DEFAULT_C_PUCT, DEFAULT_EXPLORATION, DEFAULT_FPU_REDUCTION, DEFAULT_LEAF_DEPTH, DEFAULT_LEAF_DEPTH_ROOT,
    DEFAULT_PLAYOUT_CAP, DEFAULT_PRIOR_TEMPERATURE, DEFAULT_RECYCLE, DEFAULT_SELECTION, DEFAULT_VALUE_MODEL,
    LEAF_MODES, OWN_SWITCH_DEFAULTS, OWN_SWITCHES, SELECTIONS, VALUE_MODELS, checked_choice, checked_leaf_depth,
)
from search.mcts_tree import TreeNode
from search.searcher import uci_score, with_switches

STOP_REASONS = {STOP_NONE: None, STOP_SIGNAL: "stop", STOP_PROVEN: "proven", STOP_LIMIT: "limit",
                STOP_TIME: "time"}
VERIFICATIONS = {VERIFY_NONE: None, VERIFY_KEPT: "kept", VERIFY_OVERRULED: "overruled", VERIFY_CUT_OFF: "cut off",
                 VERIFY_DECISIVE: "decisive"}
# The names of the features of prior_features(), indexed by mcts_priors.pxd's enum (a feature
# missing here fails at import).
_FEATURE_NAMES = {
    FEATURE_TT_MOVE: "tt_move", FEATURE_CAPTURE: "capture", FEATURE_CAPTURE_GAIN: "capture_gain",
    FEATURE_CAPTURE_LOSS: "capture_loss", FEATURE_QUIET_LOSS: "quiet_loss",
    FEATURE_QUEEN_PROMOTION: "queen_promotion", FEATURE_UNDER_PROMOTION: "under_promotion",
    FEATURE_CHECK: "check", FEATURE_HISTORY: "history", FEATURE_ESCAPE: "escape", FEATURE_PSQT: "psqt",
    FEATURE_PAWN_THREAT: "pawn_threat", FEATURE_CASTLING: "castling", FEATURE_RECAPTURE: "recapture",
    FEATURE_PIECE_THREAT: "piece_threat", FEATURE_IGNORED_THREAT: "ignored_threat",
}
PRIOR_FEATURES = tuple(_FEATURE_NAMES[k] for k in range(PRIOR_FEATURE_COUNT))
# Helper i's random stream starts this far from the main thread's (an odd constant unrelated
# to splitmix64's step, so that no two streams overlap in any search's length).
HELPER_SEED_STEP = 0xD1B54A32D192ED03


cdef (int, int) root_refresh_schedule(bint deep):
    """The root's refresh schedule, (extra plies, deepest), with `deep_root_refresh` on or off
    (off: the schedule of every other node)."""
    if deep:
        return ROOT_REFRESH_EXTRA, ROOT_REFRESH_MAX_DEPTH
    return 0, REFRESH_MAX_DEPTH


cdef class MCTSSearcher(Searcher):
    """PUCT (or UCT) with an MCTS-Solver over a node pool sized from the Hash option."""

    def __cinit__(self, *args, **kwargs):
        self.state = <MCTSState*>PyMem_Malloc(sizeof(MCTSState))
        if self.state == NULL:
            raise MemoryError()
        self.qs = new_search_state()
        memset(self.state, 0, sizeof(MCTSState))
        self.state.verified_child = NODE_NONE      # (0 is a node)
        memset(&self.shared, 0, sizeof(MCTSShared))
        self.tree = MCTSTree()
        self.helper_walks = NULL
        self.helper_name = "kestrel-mcts"
        self.tt.entries = NULL
        self.tt.block = NULL
        self.state.signals = &self.control.signals
        self.state.shared = &self.shared
        self.qs.signals = &self.control.signals

    def __init__(self, hash_mb: int = 16, threads: int = 1) -> None:
        self.exploration = DEFAULT_EXPLORATION
        self.c_puct = DEFAULT_C_PUCT
        self.fpu_reduction = DEFAULT_FPU_REDUCTION
        self.prior_temperature = DEFAULT_PRIOR_TEMPERATURE
        self.playout_cap = DEFAULT_PLAYOUT_CAP
        self.reuse_tree = True
        self.recycle = DEFAULT_RECYCLE
        self.leaf_code = LEAF_EVAL
        self.leaf_depth = DEFAULT_LEAF_DEPTH
        self.leaf_depth_root = DEFAULT_LEAF_DEPTH_ROOT
        self.selection = DEFAULT_SELECTION
        self.value_model = DEFAULT_VALUE_MODEL
        self.seed_value = 0
        # The default switches: the leaves' alpha-beta and quiescence searches run with the adopted
        # techniques, as the alpha-beta searcher's defaults have them (its parameters come from
        # _load_params), and one full window, no iterations.
        self.configure()
        self.qs.completed_depth = 1     # lets its stop check see only the stop flag and the hard limit
        Searcher.__init__(self, hash_mb)
        self.threads = threads

    def __dealloc__(self):
        PyMem_Free(self.helper_walks)
        tt_free(&self.tt)
        PyMem_Free(self.state)
        free_search_state(self.qs)

    # ------------------------------------------------------------ settings

    @property
    def leaf_mode(self) -> str:
        """'eval' (quiescence score as a win probability) or 'playout' (random playout)."""
        return LEAF_MODES[self.leaf_code]

    @leaf_mode.setter
    def leaf_mode(self, value: str) -> None:
        self.leaf_code = LEAF_EVAL if checked_choice("leaf_mode", value, LEAF_MODES) == "eval" else LEAF_PLAYOUT

    @property
    def leaf_depth(self) -> int:
        """Alpha-beta plies that value a new leaf in 'eval' mode (0: the quiescence search alone)."""
        return self.leaf_depth_value

    @leaf_depth.setter
    def leaf_depth(self, value: int) -> None:
        self.leaf_depth_value = checked_leaf_depth("leaf_depth", value)

    @property
    def leaf_depth_root(self) -> int:
        """Alpha-beta plies for a new leaf one move below the root in 'eval' mode, one less for
        each move further down, never less than leaf_depth (0: leaf_depth everywhere)."""
        return self.leaf_depth_root_value

    @leaf_depth_root.setter
    def leaf_depth_root(self, value: int) -> None:
        self.leaf_depth_root_value = checked_leaf_depth("leaf_depth_root", value)

    @property
    def selection(self) -> str:
        """'puct' (priors, first-play urgency) or 'uct' (UCB1, every child tried once first)."""
        return SELECTIONS[self.selection_code]

    @selection.setter
    def selection(self, value: str) -> None:
        self.selection_code = SELECT_PUCT if checked_choice("selection", value, SELECTIONS) == "puct" else SELECT_UCT

    @property
    def value_model(self) -> str:
        """How a leaf's score becomes a win probability: 'wdl' (the fitted model) or 'logistic' (400 cp)."""
        return VALUE_MODELS[self.value_model_code]

    @value_model.setter
    def value_model(self, value: str) -> None:
        name = checked_choice("value_model", value, VALUE_MODELS)
        self.value_model_code = VALUE_MODEL_WDL if name == "wdl" else VALUE_MODEL_LOGISTIC

    @property
    def seed(self) -> int:
        """Seed of the random playouts; the same seed and a fresh tree repeat a search."""
        return self.seed_value

    @seed.setter
    def seed(self, value: int) -> None:
        self.seed_value = int(value)

    def configure(self, **switches: bool) -> None:
        """Switch techniques on or off by name: `visit_share_time` (the stop rule's visit-share
        scaling), `fitted_priors` (the priors' fitted weights), `refresh_priors` (priors refreshed
        by searches as visits grow), `deep_root_refresh` (the root's refreshes deeper and
        uncapped), `verified_move` (the tree's favourite searched as deep as the root's latest
        search before it is played), `decisive_root_move` (in a won position the root search's
        move, not the tree's), all adopted and on by default,
        and the leaves' alpha-beta switches (AlphaBetaSearcher.configure()'s
        names; the leaves never use aspiration windows, and use correction history and ProbCut
        only when named).  A switch not named is as by default;
        an unknown name is a TypeError.  KESTREL_SEARCH_ON/OFF reach MCTS through this."""
        own = {name: bool(switches.pop(name, OWN_SWITCH_DEFAULTS[name])) for name in OWN_SWITCHES}
        cdef dict leaf_defaults = adopted_config()     # the struct, read as a dict
        # Correction history won its games in alpha-beta (docs/search.md) and was never measured in
        # MCTS, where the corrections the root's searches learn reach every leaf: off unless asked.
        leaf_defaults["correction_history"] = False
        # ProbCut won its games in alpha-beta after MCTS's standing was measured: off unless asked.
        leaf_defaults["probcut"] = False
        leaf_config = with_switches(leaf_defaults, switches)        # an unknown name raises here
        leaf_config["aspiration"] = False       # a leaf searches one full window, no iterations
        self.qs.config = leaf_config
        for name, on in own.items():
            setattr(self, name, on)

    @property
    def leaf_switches(self) -> Dict[str, bool]:
        """The search techniques of the leaves' alpha-beta and quiescence searches."""
        return {name: bool(on) for name, on in (<dict>self.qs.config).items()}

    # ------------------------------------------------------------ the priors, for their fit and tests

    cdef void _set_position(self, Position position, MoveList* moves):
        """Put `position` on the leaf board (with this searcher's table) and its legal moves in `moves`."""
        memcpy(&self.qs.board, position.board, sizeof(Board))
        self.qs.tt = &self.tt
        generate_legal(&self.qs.board, moves)

    def priors(self, position: Position) -> Dict[str, float]:
        """The PUCT prior of every legal move in `position`, as an expansion would give them
        (with this searcher's table and history, at its temperature)."""
        cdef MoveList moves
        cdef double values[256]
        cdef int i
        self._set_position(position, &moves)
        move_priors(self.qs, moves.moves, moves.count, max(1e-3, float(self.prior_temperature)),
                    prior_weight_table(self.fitted_priors), values)
        return {move_to_uci(&self.qs.board, moves.moves[i]): values[i] for i in range(moves.count)}

    def prior_features(self, position: Position, tt_move: Optional[str] = None) -> Dict[str, List[float]]:
        """The features the priors weigh (PRIOR_FEATURES, in order) for every legal move in
        `position`, with `tt_move` (UCI) as the table's move, or the table's own when None,
        and this searcher's history: what `python -m tools.policy_fit` fits the weights to."""
        cdef MoveList moves
        cdef double features[PRIOR_FEATURE_COUNT]
        cdef Move hint
        cdef Bitboard threatened
        cdef int i, k
        self._set_position(position, &moves)
        hint = table_move(self.qs) if tt_move is None else parse_uci_move(&self.qs.board, tt_move)
        threatened = threatened_pieces(self.qs)
        result = {}
        for i in range(moves.count):
            move_features(self.qs, moves.moves[i], hint, threatened, NULL, features)
            result[move_to_uci(&self.qs.board, moves.moves[i])] = [features[k] for k in range(PRIOR_FEATURE_COUNT)]
        return result

    @staticmethod
    def prior_weights(fitted: bool) -> List[float]:
        """One of the priors' weight tables (PRIOR_FEATURES' order): the fitted or the hand-set one."""
        cdef const double* table = prior_weight_table(fitted)
        return [table[k] for k in range(PRIOR_FEATURE_COUNT)]

    # ------------------------------------------------------------ the tables

    cdef int _resize(self, int megabytes) except -1:
        """The node pool takes 3/4 of the Hash, the table of the leaves' searches 1/4; clears the tree.

        The Hash budget is split, not doubled, so that `Hash` still bounds the memory.  A
        searched leaf visits tens to hundreds of alpha-beta nodes for each tree node, so
        the table gets a larger share than the quiescence leaves alone would need."""
        tt_mb = max(1, megabytes // 4)
        pool_bytes = max(1 << 20, (megabytes << 20) - (tt_mb << 20))
        if self.tree.allocate(pool_bytes) != 0 or tt_resize(&self.tt, tt_mb) != 0:
            raise MemoryError(f"cannot allocate a {megabytes} MB node pool")
        return 0

    cdef int _load_params(self) except -1:
        # The leaves' quiescence search reads the same table as alpha-beta.
        return load_search_params(&self.qs.params, self.search_params)

    cdef int _use_network(self) except -1:
        # The leaves' searches evaluate; the tree keeps values of the old evaluation until clear().
        return evaluator_use(&self.qs.evaluator, self.network)

    def clear(self) -> None:
        """Forget the tree, the leaves' table and what their searches learnt (for ucinewgame)."""
        cdef int i
        self.tree.clear()
        tt_clear(&self.tt)
        memset(self.qs.history, 0, sizeof(self.qs.history))
        clear_corrections(self.qs)
        for i in range(self.helper_count):
            memset(self.helpers[i].history, 0, sizeof(self.helpers[i].history))
            clear_corrections(self.helpers[i])

    def hashfull(self) -> int:
        """Pool use in per mille."""
        if self.tree.pool.capacity == 0:
            return 0
        return <int>(<uint64_t>self.tree.used * 1000 // self.tree.pool.capacity)

    @property
    def pool_capacity(self) -> int:
        """How many nodes the pool holds at most."""
        return self.tree.capacity

    @property
    def pool_used(self) -> int:
        """Nodes in the tree now."""
        return self.tree.used

    # ------------------------------------------------------------ one search

    cdef void _no_legal_move(self):
        self.tree.valid = False

    cdef int _prepare(self, Board* root, list allowed, TimeBudget budget, object limits) except -1:
        cdef MCTSState* s = self.state
        cdef SearchState* qs = self.qs
        memcpy(&qs.board, root, sizeof(Board))
        drop_old_history(&qs.board, 300)
        s.qs = qs
        s.pool = &self.tree.pool
        s.exploration = max(0.0, float(self.exploration))
        s.selection = self.selection_code
        s.c_puct = max(0.0, float(self.c_puct))
        s.fpu_reduction = max(0.0, min(1.0, float(self.fpu_reduction)))
        s.prior_temperature = max(1e-3, float(self.prior_temperature))
        s.prior_weights = prior_weight_table(self.fitted_priors)
        s.leaf_mode = self.leaf_code
        s.leaf_depth = self.leaf_depth_value
        s.leaf_depth_root = self.leaf_depth_root_value
        s.value_model = self.value_model_code
        s.playout_cap = max(0, min(int(self.playout_cap), 400))
        s.recycle = self.recycle
        s.rng = <uint64_t>self.seed_value
        s.reporter = <void*>self
        s.shared = &self.shared
        # One thread walks with no virtual loss: its searches stay what they were before threads.
        s.virtual_loss = VIRTUAL_LOSS if self.helper_count > 0 else 0
        qs.tt = &self.tt
        self.root_material = board_material(&qs.board)
        shared_reset(&self.shared, self.helper_count)
        s.root = self.tree.prepare_root(s, &qs.board, allowed, self.reuse_tree)
        self.full_reported = False
        tt_new_search(&self.tt)
        s.time = budget
        s.visit_share_time = self.visit_share_time
        s.verified_move = self.verified_move
        s.decisive_root_move = self.decisive_root_move
        s.verified_child = NODE_NONE
        s.refresh_priors = self.refresh_priors
        s.root_refresh_extra, s.root_refresh_max_depth = root_refresh_schedule(self.deep_root_refresh)
        s.time_factor = 1.0
        qs.time = budget        # a leaf's search stops at the hard limit too
        s.playout_limit, s.depth_limit, s.mate_limit = limits.fixed_limits()
        return 0

    cdef int _resize_helpers(self) except -1:
        """One tree walk per helper state of the Searcher (helper_count of them)."""
        PyMem_Free(self.helper_walks)
        self.helper_walks = NULL
        if self.helper_count > 0:
            self.helper_walks = <MCTSState*>PyMem_Malloc(self.helper_count * sizeof(MCTSState))
            if self.helper_walks == NULL:
                raise MemoryError("cannot allocate the search threads")
            memset(self.helper_walks, 0, self.helper_count * sizeof(MCTSState))
        return 0

    cdef int _prepare_helper(self, int index) except -1:
        """A copy of the main thread's settings, root and limits, with the helper's own board,
        leaf-search state, random stream and no clock (the main thread stops it)."""
        cdef MCTSState* h = &self.helper_walks[index]
        cdef SearchState* q = self.helpers[index]
        memcpy(&q.board, &self.qs.board, sizeof(Board))
        q.config = self.qs.config
        q.params = self.qs.params
        q.tt = &self.tt
        memset(&q.time, 0, sizeof(TimeBudget))      # untimed: the main thread watches the clock
        q.signals = &self.shared.helper_signals
        q.completed_depth = 1
        h[0] = self.state[0]
        h.qs = q
        h.signals = &self.shared.helper_signals
        h.reporter = NULL
        h.rng = self.state.rng + <uint64_t>(index + 1) * <uint64_t>HELPER_SEED_STEP
        return 0

    cdef void _run_helper(self, int index) noexcept nogil:
        mcts_helper(&self.helper_walks[index])

    cdef void _halt_helpers(self) noexcept nogil:
        # Their flag, and their leaf searches' `stopped`, looked at every node (the flag only each
        # 1024): a leaf search cut off ends the helper's walk.  The main thread waits for them to
        # leave the tree (finish_helpers).
        cdef int i
        store_flag(&self.shared.helper_signals.stop_requested, 1)
        for i in range(self.helper_count):
            self.helpers[i].stopped = True

    cdef void _run(self) noexcept nogil:
        mcts_search(self.state)     # it stops the helpers and waits for them before it returns

    cdef object _finish(self):
        cdef uint32_t best = self._chosen_child()
        self.tree.search_done(&self.shared)
        pv = self.tree.pv_from(best, &self.qs.board)
        value = self._child_value(best)
        return SearchResult(pv[0], pv[1] if len(pv) > 1 else None, uci_score(value),
                            self._average_depth(), self.shared.nodes, pv, value)

    # ------------------------------------------------------------ the move and the reports

    cdef uint32_t _chosen_child(self):
        """The root child to play: the tree's favourite (best_child), unless `verified_move`
        found it refuted and put the root search's move in its place."""
        if self.state.verified_child != NODE_NONE:
            return self.state.verified_child
        return best_child(&self.tree.pool, self.state.root)

    cdef int _child_value(self, uint32_t child):
        """A root child's score for `info` and the result: the tree's, but for a move
        `verified_move` put in place of a refuted favourite (or `decisive_root_move` in place of
        any), which the tree may hardly have visited: the root search's score for it, which is
        what chose it."""
        if child == self.state.verified_child and self.state.verification in (VERIFY_OVERRULED, VERIFY_DECISIVE):
            return root_search_score_of(self.shared.root_search)
        return self.tree.node_score(child, self.value_model_code, self.root_material)

    def _average_depth(self) -> int:
        if self.shared.playouts == 0:
            return 1
        return max(1, int(round(self.shared.depth_sum / self.shared.playouts)))

    def _report(self, int kind, int depth) -> None:
        """Called from the main search thread with the GIL: a snapshot of the best lines, with the
        playouts and nodes of every thread (helpers may be changing the tree meanwhile)."""
        cdef MCTSShared* s = &self.shared
        cdef uint32_t child
        if self.on_info is None:
            return
        if s.recycles > 0 and not self.full_reported:
            self.full_reported = True
            self._emit(InfoString("node pool full, its least visited subtrees are recycled "
                                  "(a larger Hash keeps more of the tree)"))
        elif s.pool_full and not self.full_reported:
            self.full_reported = True
            self._emit(InfoString("node pool full, tree stops growing"))
        depth = self._average_depth()
        ranked = self.tree.ranked_children(self.state.root, self._chosen_child())
        for line in range(min(max(1, min(self.multipv, MAX_MULTIPV)), len(ranked))):
            child = ranked[line]
            value = self._child_value(child)
            self._emit(self._pv_line(depth, s.seldepth, line + 1, value, None, s.nodes,
                                     self.tree.pv_from(child, &self.qs.board)))

    # ------------------------------------------------------------ what the last search did

    @property
    def playouts(self) -> int:
        """Playouts of the last search, every thread's (the `nodes` it reports add the leaves'
        alpha-beta nodes)."""
        return self.shared.playouts

    @property
    def thread_playouts(self) -> List[int]:
        """Playouts of the last search, by thread (the main one first); they add up to ``playouts``."""
        cdef int i
        return [self.state.playouts] + [self.helper_walks[i].playouts for i in range(self.helper_count)]

    @property
    def root_visits(self) -> int:
        """Visits of the last search's root (for a fresh tree: its playouts)."""
        return self.tree.pool.nodes[self.state.root].visits if self.tree.valid else 0

    @property
    def stop_reason(self) -> Optional[str]:
        """Why the last search ended: 'stop', 'proven', 'limit' or 'time'."""
        return STOP_REASONS[self.state.stop_reason]

    @property
    def time_factor(self) -> float:
        """The soft limit's scale when the last search stopped (1.0 unless visit_share_time
        scaled it: below 1 when one root move took most playouts, above when it is contested;
        1.0 under movetime, in a ponder search and without a clock)."""
        return self.state.time_factor

    @property
    def recycles(self) -> int:
        """How often the last search found the pool full and dropped its least visited subtrees."""
        return self.shared.recycles

    @property
    def root_search(self) -> Optional[Tuple[str, int, int]]:
        """The last search's latest refresh of the root: its best move, depth and score (the
        score in centipawns for the side to move), or None when no refresh of the root has run."""
        cdef uint64_t word = self.shared.root_search
        if word == 0:
            return None
        return (move_to_uci(&self.qs.board, root_search_move_of(word)), root_search_depth_of(word),
                root_search_score_of(word))

    @property
    def root_search_move(self) -> Optional[str]:
        """The best move of the last search's latest refresh of the root (its deepest alpha-beta
        search of the root position), or None when no refresh of the root has run."""
        cdef Move move = root_search_move_of(self.shared.root_search)
        return None if move == MOVE_NONE else move_to_uci(&self.qs.board, move)

    @property
    def verification(self) -> Optional[str]:
        """What `verified_move` did at the end of the last search: None (nothing to check),
        'kept' (the favourite held), 'overruled' (the root search's move was played instead),
        'cut off' (the hard limit stopped the check; the favourite was played) or 'decisive'
        (`decisive_root_move`: the root search scored a win, and its move was played)."""
        return VERIFICATIONS[self.state.verification]

    def root_children(self) -> List[Dict]:
        """The root's moves after a search: move, visits, mean value, proven result."""
        return self.tree.root_children(self.state.root, &self.qs.board)

    def tree_nodes(self) -> List[TreeNode]:
        """Every node of the pool as the last search left it, in pool order, the root first: what
        tests check the tree's invariants on (tests/mcts_tree_checks.py).  Not while a search runs."""
        return self.tree.nodes()

    @property
    def tree_was_full(self) -> bool:
        """Whether the pool filled up in a search of this tree (its leaves may then have been
        valued more than once, each time the tree could not grow them)."""
        return self.tree.was_full
