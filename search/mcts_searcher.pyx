"""The Python face of the Monte Carlo tree searcher: ``MCTSSearcher``.

The shape of a search, stop and ponderhit come from ``search.searcher.Searcher``, so
the UCI loop drives it like the alpha-beta searcher; ``selection``, ``c_puct``,
``fpu_reduction``, ``prior_temperature``, ``exploration``, ``leaf_mode``, ``leaf_depth``,
``leaf_depth_root``, ``value_model``, ``seed`` and ``threads`` are its own
(docs/mcts.md).  ``bench`` prints playouts per second in each leaf mode.

With ``threads`` > 1, helper threads grow the same tree as the main thread, each with its
own board and leaf-search state (the transposition table is shared); every thread runs
without the GIL, and the main one reports, keeps the clock and chooses the move.
"""

from cpython.mem cimport PyMem_Malloc, PyMem_Free
from libc.stdint cimport int64_t, uint32_t, uint64_t
from libc.string cimport memset, memcpy
from search.board.types cimport Bitboard, Move, MoveList, MATE, MOVE_NONE
from search.board.movegen cimport generate_legal, parse_uci_move
from search.board.board cimport Board, move_to_uci, drop_old_history
from search.tt cimport (
    TranspositionTable, tt_resize, tt_free, tt_clear, tt_new_search, tt_store, BOUND_LOWER, TT_EXACT_BONUS,
)
from search.state cimport SearchState, adopted_config
from search.mcts cimport (
    Node, NodePool, MCTSState, MCTSShared, NODE_NONE, PROVEN_UNKNOWN, PROVEN_WIN, PROVEN_LOSS, PROVEN_DRAW,
    LEAF_EVAL, LEAF_PLAYOUT, SELECT_PUCT, SELECT_UCT, PRIOR_ONE, VIRTUAL_LOSS,
    STAGE_NEW, STAGE_CHECKING, STAGE_LEAF, STAGE_EXPANDING, STAGE_EXPANDED,
    STOP_NONE, STOP_SIGNAL, STOP_PROVEN, STOP_LIMIT, STOP_TIME,
    VERIFY_NONE, VERIFY_KEPT, VERIFY_OVERRULED, VERIFY_CUT_OFF,
    root_search_move_of, root_search_depth_of, root_search_score_of,
    pool_allocate, pool_free, pool_new_root, pool_keep_subtree, pool_used, node_expanded,
    REFRESH_MAX_DEPTH, ROOT_REFRESH_EXTRA, ROOT_REFRESH_MAX_DEPTH,
    best_child, expand, shared_reset, helpers_not_started, stop_helpers,
    mcts_search, mcts_helper, verify_tree_move,
)
from search.mcts_value cimport VALUE_MODEL_LOGISTIC, VALUE_MODEL_WDL, board_material, probability_to_score
from search.mcts_priors cimport (
    move_priors, move_features, table_move, threatened_pieces, HAND_PRIOR_WEIGHTS, FITTED_PRIOR_WEIGHTS,
    PRIOR_FEATURE_COUNT, FEATURE_TT_MOVE, FEATURE_CAPTURE, FEATURE_CAPTURE_GAIN, FEATURE_CAPTURE_LOSS,
    FEATURE_QUIET_LOSS, FEATURE_QUEEN_PROMOTION, FEATURE_UNDER_PROMOTION, FEATURE_CHECK, FEATURE_HISTORY,
    FEATURE_ESCAPE, FEATURE_PSQT, FEATURE_PAWN_THREAT, FEATURE_CASTLING, FEATURE_RECAPTURE, FEATURE_PIECE_THREAT,
    FEATURE_IGNORED_THREAT,
)
from search.board.position cimport Position
from search.timeman cimport TimeBudget
from search.searcher cimport Searcher
from search.params cimport load_search_params

from collections import namedtuple
from typing import Callable, Dict, List, Optional, Tuple

from search.info import InfoString, SearchResult
from search.limits import MAX_MULTIPV, SearchLimits
from search.searcher import uci_score, with_switches

LEAF_MODES = ("eval", "playout")
SELECTIONS = ("puct", "uct")
VALUE_MODELS = ("logistic", "wdl")
STOP_REASONS = {STOP_NONE: None, STOP_SIGNAL: "stop", STOP_PROVEN: "proven", STOP_LIMIT: "limit",
                STOP_TIME: "time"}
VERIFICATIONS = {VERIFY_NONE: None, VERIFY_KEPT: "kept", VERIFY_OVERRULED: "overruled", VERIFY_CUT_OFF: "cut off"}
MAX_LEAF_DEPTH = 8
MAX_REUSE_PLIES = 8     # how far back in the game the previous root may lie for its subtree to be kept
# The defaults are the settings that won their games (the experiments ledger has them).
DEFAULT_SELECTION = "puct"          # priors make PUCT far stronger than UCB1
DEFAULT_EXPLORATION = 0.05          # UCB1's constant (values are in [0, 1])
DEFAULT_C_PUCT = 1.0                # with the fitted priors, less width plays better; 0.35 is too greedy
DEFAULT_FPU_REDUCTION = 0.1
DEFAULT_PRIOR_TEMPERATURE = 1.0     # the temperature the fitted prior weights were fitted at
DEFAULT_PLAYOUT_CAP = 40
DEFAULT_LEAF_DEPTH = 0              # quiescence leaves: deeper ones cost more playouts than they are worth
DEFAULT_LEAF_DEPTH_ROOT = 4         # ... but next to the root, where the move is decided, 4 plies pay
DEFAULT_VALUE_MODEL = "wdl"
DEFAULT_RECYCLE = True              # a full pool recycles its least visited subtrees
# The adopted techniques, each with its ablation switch in configure():
DEFAULT_VISIT_SHARE_TIME = True     # the soft limit scaled by the favourite's share of the playouts
DEFAULT_FITTED_PRIORS = True        # the prior weights fitted to alpha-beta's moves, not the hand-set ones
DEFAULT_REFRESH_PRIORS = True       # priors re-derived by alpha-beta searches as visits grow (mcts.pxd, REFRESH_*)
DEFAULT_DEEP_ROOT_REFRESH = True    # the root's refreshes deeper and uncapped (mcts.pxd, ROOT_REFRESH_*)
DEFAULT_VERIFIED_MOVE = True        # a favourite the root's search disputes is searched as deep before it is played
# configure() names that only this searcher has, with their defaults (the others are the
# leaves', alpha-beta's names); each is an attribute of MCTSSearcher of the same name.
OWN_SWITCH_DEFAULTS = {
    "visit_share_time": DEFAULT_VISIT_SHARE_TIME, "fitted_priors": DEFAULT_FITTED_PRIORS,
    "refresh_priors": DEFAULT_REFRESH_PRIORS, "deep_root_refresh": DEFAULT_DEEP_ROOT_REFRESH,
    "verified_move": DEFAULT_VERIFIED_MOVE,
}
OWN_SWITCHES = tuple(OWN_SWITCH_DEFAULTS)
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

_PROVEN_NAMES = {PROVEN_UNKNOWN: None, PROVEN_WIN: "win", PROVEN_LOSS: "loss", PROVEN_DRAW: "draw"}
_STAGE_NAMES = {STAGE_NEW: "new", STAGE_CHECKING: "checking", STAGE_LEAF: "leaf", STAGE_EXPANDING: "expanding",
                STAGE_EXPANDED: "expanded"}
# A node of tree_nodes(): parent and first_child are None where there is none.
TreeNode = namedtuple("TreeNode", "parent first_child child_count stage visits value_sum proven")
# Helper i's random stream starts this far from the main thread's (an odd constant unrelated
# to splitmix64's step, so that no two streams overlap in any search's length).
HELPER_SEED_STEP = 0xD1B54A32D192ED03


cdef int node_value(const Node* n, int model, int material):
    """The internal score of a root child for the side to move: mate scores, or centipawns
    (the mean value read back through the curve the leaves were valued with)."""
    if n.proven == PROVEN_WIN:
        return MATE - (n.mate_plies + 1)
    if n.proven == PROVEN_LOSS:
        return -(MATE - (n.mate_plies + 1))
    if n.proven == PROVEN_DRAW or n.visits == 0:
        return 0
    return probability_to_score(n.value_sum / n.visits, model, material)


cdef const double* weight_table(bint fitted):
    """The priors' weights: the fitted table or the hand-set one."""
    if fitted:
        return &FITTED_PRIOR_WEIGHTS[0]
    return &HAND_PRIOR_WEIGHTS[0]


def _leaf_depth(name: str, value: object) -> int:
    """`value` as a leaf search depth, or ValueError naming the setting when out of range."""
    depth = int(value)
    if not 0 <= depth <= MAX_LEAF_DEPTH:
        raise ValueError(f"{name} must be from 0 to {MAX_LEAF_DEPTH}, not {value!r}")
    return depth


cdef class MCTSSearcher(Searcher):
    """PUCT (or UCT) with an MCTS-Solver over a node pool sized from the Hash option."""

    cdef MCTSState* state                # the main thread's
    cdef SearchState* qs
    cdef NodePool pool
    cdef MCTSShared shared               # counters and flags of every thread of a search
    cdef MCTSState* helper_walks         # the helpers' tree walks (their boards and leaf searches: helpers)
    cdef TranspositionTable tt
    cdef public double exploration
    cdef public double c_puct
    cdef public double fpu_reduction
    cdef public double prior_temperature
    cdef public int playout_cap
    cdef public bint reuse_tree
    cdef public bint recycle            # a full pool drops its least visited subtrees (mcts.pxd)
    cdef public bint visit_share_time   # the stop rule's visit-share scaling (DEFAULT_VISIT_SHARE_TIME)
    cdef public bint fitted_priors      # the priors' fitted weights, else the hand-set ones (DEFAULT_FITTED_PRIORS)
    cdef public bint refresh_priors     # priors refreshed by searches of the node (DEFAULT_REFRESH_PRIORS)
    cdef public bint deep_root_refresh  # the root's refreshes deeper and uncapped (DEFAULT_DEEP_ROOT_REFRESH)
    cdef public bint verified_move       # the favourite checked against the root's search (DEFAULT_VERIFIED_MOVE)
    cdef int leaf_code
    cdef int leaf_depth_value
    cdef int leaf_depth_root_value
    cdef int selection_code
    cdef int value_model_code
    cdef int root_material
    cdef int64_t seed_value
    cdef bint full_reported
    cdef bint tree_valid
    cdef bint was_full               # the pool filled up in a search of this tree (tree_was_full)
    cdef bint root_filtered
    cdef uint64_t root_key

    def __cinit__(self, *args, **kwargs):
        self.state = <MCTSState*>PyMem_Malloc(sizeof(MCTSState))
        self.qs = <SearchState*>PyMem_Malloc(sizeof(SearchState))
        if self.state == NULL or self.qs == NULL:
            raise MemoryError()
        memset(self.state, 0, sizeof(MCTSState))
        self.state.verified_child = NODE_NONE      # (0 is a node)
        memset(self.qs, 0, sizeof(SearchState))
        memset(&self.pool, 0, sizeof(NodePool))
        memset(&self.shared, 0, sizeof(MCTSShared))
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
        pool_free(&self.pool)
        tt_free(&self.tt)
        PyMem_Free(self.state)
        PyMem_Free(self.qs)

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

    @property
    def root_visits(self) -> int:
        """Visits of the last search's root (for a fresh tree: its playouts)."""
        return self.pool.nodes[self.state.root].visits if self.tree_valid else 0

    @property
    def thread_playouts(self) -> List[int]:
        """Playouts of the last search, by thread (the main one first); they add up to ``playouts``."""
        cdef int i
        return [self.state.playouts] + [self.helper_walks[i].playouts for i in range(self.helper_count)]

    @property
    def leaf_mode(self) -> str:
        """'eval' (quiescence score as a win probability) or 'playout' (random playout)."""
        return LEAF_MODES[self.leaf_code]

    @leaf_mode.setter
    def leaf_mode(self, value: str) -> None:
        name = str(value).strip().lower()
        if name not in LEAF_MODES:
            raise ValueError(f"leaf_mode must be one of {', '.join(LEAF_MODES)}, not {value!r}")
        self.leaf_code = LEAF_EVAL if name == "eval" else LEAF_PLAYOUT

    @property
    def leaf_depth(self) -> int:
        """Alpha-beta plies that value a new leaf in 'eval' mode (0: the quiescence search alone)."""
        return self.leaf_depth_value

    @leaf_depth.setter
    def leaf_depth(self, value: int) -> None:
        self.leaf_depth_value = _leaf_depth("leaf_depth", value)

    @property
    def leaf_depth_root(self) -> int:
        """Alpha-beta plies for a new leaf one move below the root in 'eval' mode, one less for
        each move further down, never less than leaf_depth (0: leaf_depth everywhere)."""
        return self.leaf_depth_root_value

    @leaf_depth_root.setter
    def leaf_depth_root(self, value: int) -> None:
        self.leaf_depth_root_value = _leaf_depth("leaf_depth_root", value)

    @property
    def selection(self) -> str:
        """'puct' (priors, first-play urgency) or 'uct' (UCB1, every child tried once first)."""
        return SELECTIONS[self.selection_code]

    @selection.setter
    def selection(self, value: str) -> None:
        name = str(value).strip().lower()
        if name not in SELECTIONS:
            raise ValueError(f"selection must be one of {', '.join(SELECTIONS)}, not {value!r}")
        self.selection_code = SELECT_PUCT if name == "puct" else SELECT_UCT

    @property
    def value_model(self) -> str:
        """How a leaf's score becomes a win probability: 'wdl' (the fitted model) or 'logistic' (400 cp)."""
        return VALUE_MODELS[self.value_model_code]

    @value_model.setter
    def value_model(self, value: str) -> None:
        name = str(value).strip().lower()
        if name not in VALUE_MODELS:
            raise ValueError(f"value_model must be one of {', '.join(VALUE_MODELS)}, not {value!r}")
        self.value_model_code = VALUE_MODEL_WDL if name == "wdl" else VALUE_MODEL_LOGISTIC

    @property
    def playouts(self) -> int:
        """Playouts of the last search, every thread's (the `nodes` it reports add the leaves'
        alpha-beta nodes)."""
        return self.shared.playouts

    @property
    def stop_reason(self) -> Optional[str]:
        """Why the last search ended: 'stop', 'proven', 'limit' or 'time'."""
        return STOP_REASONS[self.state.stop_reason]

    @property
    def root_search_move(self) -> Optional[str]:
        """The best move of the last search's latest refresh of the root (its deepest alpha-beta
        search of the root position), or None when no refresh of the root has run."""
        cdef Move move = root_search_move_of(self.shared.root_search)
        return None if move == MOVE_NONE else move_to_uci(&self.qs.board, move)

    def verify_favourite(self) -> Tuple[Optional[str], str]:
        """Run `verified_move`'s check on the last search's tree now, untimed (for tests and
        inspection: a search runs it itself when the switch is on and a clock ends it): returns
        what it did, as `verification` says it, and the move it would play."""
        if not self.tree_valid or best_child(&self.pool, self.state.root) == NODE_NONE:
            raise ValueError("no search has left a tree with moves to check")
        memset(&self.qs.time, 0, sizeof(TimeBudget))
        self.qs.stopped = False
        self.state.verification = VERIFY_NONE
        self.state.verified_child = NODE_NONE
        with nogil:
            verify_tree_move(self.state)
        return VERIFICATIONS[self.state.verification], move_to_uci(&self.qs.board,
                                                                   self.pool.nodes[self._chosen_child()].move)

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
    def verification(self) -> Optional[str]:
        """What `verified_move` did at the end of the last search: None (nothing to check),
        'kept' (the favourite held), 'overruled' (the root search's move was played instead)
        or 'cut off' (the hard limit stopped the check; the favourite was played)."""
        return VERIFICATIONS[self.state.verification]

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

    def configure(self, **switches: bool) -> None:
        """Switch techniques on or off by name: `visit_share_time` (the stop rule's visit-share
        scaling), `fitted_priors` (the priors' fitted weights), `refresh_priors` (priors refreshed
        by searches as visits grow), `deep_root_refresh` (the root's refreshes deeper and
        uncapped), `verified_move` (the tree's favourite searched as deep as the root's latest
        search before it is played), all adopted and on by default,
        and `tt_keep_exact` and the leaves' alpha-beta switches (AlphaBetaSearcher.configure()'s
        names; the leaves never use aspiration windows).  A switch not named is as by default;
        an unknown name is a TypeError.  KESTREL_SEARCH_ON/OFF reach MCTS through this."""
        own = {name: bool(switches.pop(name, default)) for name, default in OWN_SWITCH_DEFAULTS.items()}
        keep_exact = bool(switches.pop("tt_keep_exact", False))
        leaf_config = with_switches(adopted_config(), switches)     # an unknown name raises here
        leaf_config["aspiration"] = False       # a leaf searches one full window, no iterations
        self.qs.config = leaf_config
        for name, on in own.items():
            setattr(self, name, on)
        self.tt.exact_bonus = TT_EXACT_BONUS if keep_exact else 0

    @property
    def leaf_switches(self) -> Dict[str, bool]:
        """The search techniques of the leaves' alpha-beta and quiescence searches."""
        return {name: bool(on) for name, on in (<dict>self.qs.config).items()}

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
                    weight_table(self.fitted_priors), values)
        return {move_to_uci(&self.qs.board, moves.moves[i]): values[i] for i in range(moves.count)}

    def prior_features(self, position: Position, tt_move: Optional[str] = None) -> Dict[str, List[float]]:
        """The features the priors weigh (PRIOR_FEATURES, in order) for every legal move in
        `position`, with `tt_move` (UCI) as the table's move, or the table's own when None,
        and this searcher's history: what `python -m search.policy_fit` fits the weights to."""
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
        cdef const double* table = weight_table(fitted)
        return [table[k] for k in range(PRIOR_FEATURE_COUNT)]

    def store_tt_move(self, position: Position, move: str) -> None:
        """Put `move` in the table as the best move of `position` (for tests of the priors)."""
        cdef MoveList moves
        cdef Move m
        self._set_position(position, &moves)
        m = parse_uci_move(&self.qs.board, move)
        if m == MOVE_NONE:
            raise ValueError(f"{move!r} is not legal here")
        tt_store(&self.tt, self.qs.board.key, 1, 0, BOUND_LOWER, m, 0)

    @property
    def seed(self) -> int:
        """Seed of the random playouts; the same seed and a fresh tree repeat a search."""
        return self.seed_value

    @seed.setter
    def seed(self, value: int) -> None:
        self.seed_value = int(value)

    cdef int _resize(self, int megabytes) except -1:
        """The node pool takes 3/4 of the Hash, the table of the leaves' searches 1/4; clears the tree.

        The Hash budget is split, not doubled, so that `Hash` still bounds the memory.  A
        searched leaf visits tens to hundreds of alpha-beta nodes for each tree node, so
        the table gets a larger share than the quiescence leaves alone would need."""
        tt_mb = max(1, megabytes // 4)
        pool_bytes = max(1 << 20, (megabytes << 20) - (tt_mb << 20))
        if pool_allocate(&self.pool, pool_bytes) != 0 or tt_resize(&self.tt, tt_mb) != 0:
            raise MemoryError(f"cannot allocate a {megabytes} MB node pool")
        self.tree_valid = False
        return 0

    cdef int _load_params(self) except -1:
        # The leaves' quiescence search reads the same table as alpha-beta.
        return load_search_params(&self.qs.params, self.search_params)

    @property
    def pool_capacity(self) -> int:
        """How many nodes the pool holds at most."""
        return self.pool.capacity

    @property
    def pool_used(self) -> int:
        """Nodes in the tree now."""
        return pool_used(&self.pool)

    def clear(self) -> None:
        """Forget the tree and the quiescence table (for ucinewgame)."""
        cdef int i
        self.tree_valid = False
        self.pool.used = 0
        tt_clear(&self.tt)
        memset(self.qs.history, 0, sizeof(self.qs.history))
        for i in range(self.helper_count):
            memset(self.helpers[i].history, 0, sizeof(self.helpers[i].history))

    def hashfull(self) -> int:
        """Pool use in per mille."""
        if self.pool.capacity == 0:
            return 0
        return <int>(<uint64_t>pool_used(&self.pool) * 1000 // self.pool.capacity)

    cdef uint32_t _prepare_tree(self, list allowed) except? NODE_NONE:
        """The root for this search: the kept subtree of an earlier search if this position
        follows its root within a few plies, else a fresh root with its children."""
        cdef MCTSState* s = self.state
        cdef Board* b = &self.qs.board
        cdef uint32_t node, child, i
        cdef int k, j
        cdef uint64_t key
        cdef Move m
        cdef Move moves[256]
        if self.tree_valid and self.reuse_tree and not allowed:
            for k in range(0, min(MAX_REUSE_PLIES, b.game_ply) + 1):
                key = b.key if k == 0 else b.history[b.game_ply - k].key
                if key != self.root_key or (k == 0 and self.root_filtered):
                    continue
                node = s.root
                for j in range(k):
                    m = b.history[b.game_ply - k + j].move
                    child = NODE_NONE
                    for i in range(self.pool.nodes[node].child_count):
                        if self.pool.nodes[self.pool.nodes[node].first_child + i].move == m:
                            child = self.pool.nodes[node].first_child + i
                            break
                    node = child
                    if node == NODE_NONE:
                        break
                if node != NODE_NONE and self.pool.nodes[node].child_count > 0:
                    return pool_keep_subtree(&self.pool, node)
                break
        node = pool_new_root(&self.pool)
        self.was_full = False
        for j in range(len(allowed)):
            moves[j] = allowed[j]
        if expand(s, node, moves if allowed else NULL, len(allowed)) == NODE_NONE:
            raise MemoryError("the node pool cannot hold the root's moves")
        return node

    # ------------------------------------------------------------ one search

    cdef void _no_legal_move(self):
        self.tree_valid = False

    cdef int _prepare(self, Board* root, list allowed, TimeBudget budget, object limits) except -1:
        cdef MCTSState* s = self.state
        cdef SearchState* qs = self.qs
        memcpy(&qs.board, root, sizeof(Board))
        drop_old_history(&qs.board, 300)
        s.qs = qs
        s.pool = &self.pool
        s.exploration = max(0.0, float(self.exploration))
        s.selection = self.selection_code
        s.c_puct = max(0.0, float(self.c_puct))
        s.fpu_reduction = max(0.0, min(1.0, float(self.fpu_reduction)))
        s.prior_temperature = max(1e-3, float(self.prior_temperature))
        s.prior_weights = weight_table(self.fitted_priors)
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
        s.root = self._prepare_tree(allowed)
        self.tree_valid = False         # until this search leaves a consistent tree
        self.root_key = qs.board.key
        self.root_filtered = bool(allowed)
        self.full_reported = False
        tt_new_search(&self.tt)
        s.time = budget
        s.visit_share_time = self.visit_share_time
        s.verified_move = self.verified_move
        s.verified_child = NODE_NONE
        s.refresh_priors = self.refresh_priors
        s.root_refresh_extra, s.root_refresh_max_depth = root_refresh_schedule(self.deep_root_refresh)
        s.time_factor = 1.0
        qs.time = budget        # a leaf's search stops at the hard limit too
        s.playout_limit, s.depth_limit, s.mate_limit = limits.fixed_limits()
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

    cdef void _abandon_helpers(self, int started) noexcept nogil:
        # The helpers never started do not count; those that did are stopped.
        helpers_not_started(&self.shared, self.helper_count - started)
        stop_helpers(&self.shared)

    cdef void _run(self) noexcept nogil:
        mcts_search(self.state)     # it stops the helpers and waits for them before it returns

    cdef object _finish(self):
        cdef uint32_t best = self._chosen_child()
        self.tree_valid = True
        self.was_full = self.was_full or self.shared.pool_full or self.shared.recycles > 0
        pv = self._pv_from(best)
        value = self._child_value(best)
        return SearchResult(pv[0], pv[1] if len(pv) > 1 else None, uci_score(value),
                            self._average_depth(), self.shared.nodes, pv, value)

    # ------------------------------------------------------------ results and reports

    cdef list _pv_from(self, uint32_t node):
        """The most visited path from a root child (the proven best where it is proven)."""
        cdef Board* b = &self.qs.board
        pv = []
        while node != NODE_NONE and len(pv) < 64:
            pv.append(move_to_uci(b, self.pool.nodes[node].move))
            if not node_expanded(&self.pool.nodes[node]):
                break       # a leaf (or, while helpers run, children not yet published)
            node = best_child(&self.pool, node)
            if node != NODE_NONE and self.pool.nodes[node].visits == 0 \
                    and self.pool.nodes[node].proven == PROVEN_UNKNOWN:
                break
        return pv

    cdef uint32_t _chosen_child(self):
        """The root child to play: the tree's favourite (best_child), unless `verified_move`
        found it refuted and put the root search's move in its place."""
        if self.state.verified_child != NODE_NONE:
            return self.state.verified_child
        return best_child(&self.pool, self.state.root)

    cdef int _child_value(self, uint32_t child):
        """A root child's score for `info` and the result: the tree's (node_value), but for a
        move `verified_move` put in place of a refuted favourite, which the tree may hardly have
        visited: the root search's score for it, which is what chose it."""
        if child == self.state.verified_child and self.state.verification == VERIFY_OVERRULED:
            return root_search_score_of(self.shared.root_search)
        return node_value(&self.pool.nodes[child], self.value_model_code, self.root_material)

    cdef list _ranked_root_children(self):
        """Root children, best first by the rule of the final move choice."""
        cdef const Node* root = &self.pool.nodes[self.state.root]
        cdef uint32_t first = self._chosen_child()
        cdef uint32_t i
        cdef const Node* c
        keyed = []
        for i in range(root.child_count):
            c = &self.pool.nodes[root.first_child + i]
            if c.proven == PROVEN_WIN:
                key = (3, -c.mate_plies, 0.0)
            elif c.proven == PROVEN_LOSS:
                key = (1, c.mate_plies, 0.0)
            else:
                key = (2, c.visits, c.value_sum / c.visits if c.visits else 0.0)
            keyed.append((root.first_child + i != first, tuple(-x for x in key), i))
        keyed.sort()
        return [root.first_child + entry[2] for entry in keyed]

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
        ranked = self._ranked_root_children()
        for line in range(min(max(1, min(self.multipv, MAX_MULTIPV)), len(ranked))):
            child = ranked[line]
            value = self._child_value(child)
            self._emit(self._pv_line(depth, s.seldepth, line + 1, value, None, s.nodes, self._pv_from(child)))

    # ------------------------------------------------------------ inspection

    def tree_nodes(self) -> List[TreeNode]:
        """Every node of the pool as the last search left it, in pool order, the root first: what
        tests check the tree's invariants on (tests/mcts_tree.py).  Not while a search runs."""
        cdef uint32_t i
        cdef const Node* n
        out = []
        for i in range(pool_used(&self.pool)):
            n = &self.pool.nodes[i]
            out.append(TreeNode(None if n.parent == NODE_NONE else n.parent,
                                None if n.first_child == NODE_NONE else n.first_child, n.child_count,
                                _STAGE_NAMES[n.stage], n.visits, n.value_sum, _PROVEN_NAMES[n.proven]))
        return out

    @property
    def tree_was_full(self) -> bool:
        """Whether the pool filled up in a search of this tree (its leaves may then have been
        valued more than once, each time the tree could not grow them)."""
        return self.was_full

    def root_children(self) -> List[Dict]:
        """The root's moves after a search: move, visits, mean value, proven result."""
        cdef const Node* root = &self.pool.nodes[self.state.root]
        cdef const Node* c
        cdef uint32_t i
        out = []
        if not self.tree_valid:
            return out
        for i in range(root.child_count):
            c = &self.pool.nodes[root.first_child + i]
            out.append({"move": move_to_uci(&self.qs.board, c.move), "visits": c.visits,
                        "value": c.value_sum / c.visits if c.visits else None,
                        "prior": c.prior / <double>PRIOR_ONE,
                        "proven": _PROVEN_NAMES[c.proven], "mate_plies": c.mate_plies})
        return out


cdef (int, int) root_refresh_schedule(bint deep):
    """The root's refresh schedule, (extra plies, deepest), with `deep_root_refresh` on or off
    (off: the schedule of every other node)."""
    if deep:
        return ROOT_REFRESH_EXTRA, ROOT_REFRESH_MAX_DEPTH
    return 0, REFRESH_MAX_DEPTH


# ---------------------------------------------------------------- speed

# (name, leaf mode, leaf depth, leaf depth near the root): the defaults first.
BENCH_MODES = (
    (f"eval-d{DEFAULT_LEAF_DEPTH}-r{DEFAULT_LEAF_DEPTH_ROOT}", "eval", DEFAULT_LEAF_DEPTH, DEFAULT_LEAF_DEPTH_ROOT),
    ("eval-d0", "eval", 0, 0), ("eval-d1", "eval", 1, 0), ("eval-d2", "eval", 2, 0), ("playout", "playout", 0, 0),
)


def bench(playouts: int = 20000, out: Callable[[str], None] = print,
          positions: Optional[List[str]] = None, threads: int = 1,
          modes: Optional[List[str]] = None) -> Dict[str, float]:
    """Playouts per second in each leaf mode (the default quiescence leaves with depth-4 leaves
    near the root, eval at leaf depths 0, 1, 2 everywhere, and random playouts, or the `modes`
    named from BENCH_MODES) over the bench positions, `playouts` each, with the
    default PUCT selection and `threads` search threads.

    Prints wall-clock and process-CPU rates (the CPU rate is the fair one on a shared
    machine; with threads it adds up every thread's time, so compare wall rates, on an idle
    machine) and nodes (playouts plus the leaves' alpha-beta nodes) per CPU second; returns
    the CPU playout rates by mode.  ``python -c "from search.mcts_searcher import bench; bench()"``
    """
    import time
    from search.bench import BENCH_POSITIONS

    rates = {}
    for name, mode, depth, root_depth in BENCH_MODES:
        if modes is not None and name not in modes:
            continue
        searcher = MCTSSearcher(hash_mb=256, threads=threads)
        searcher.leaf_mode = mode
        searcher.leaf_depth = depth
        searcher.leaf_depth_root = root_depth
        searcher.seed = 1
        total, nodes, wall, cpu = 0, 0, 0.0, 0.0
        for fen in positions if positions is not None else BENCH_POSITIONS:
            searcher.clear()
            wall_start, cpu_start = time.perf_counter(), time.process_time()
            nodes += searcher.search(Position(fen), SearchLimits(nodes=playouts)).nodes
            wall += time.perf_counter() - wall_start
            cpu += time.process_time() - cpu_start
            total += searcher.playouts
        rates[name] = total / max(cpu, 1e-9)
        out(f"{name:8s} playouts {total:8d}  wall {wall:6.2f} s {total / max(wall, 1e-9):9.0f}/s"
            f"  cpu {cpu:6.2f} s {rates[name]:9.0f}/s  nodes {nodes / max(cpu, 1e-9):9.0f}/s")
    return rates
