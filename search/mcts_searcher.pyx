"""The Python face of the Monte Carlo tree searcher: ``MCTSSearcher``.

The shape of a search, stop and ponderhit come from ``search.searcher.Searcher``, so
the UCI loop drives it like the alpha-beta searcher; ``exploration``, ``leaf_mode`` and
``seed`` are its own.  ``HandTree`` and ``ucb`` expose the pool to tests on hand-made
trees; ``bench`` prints playouts per second in both leaf modes.
"""

from cpython.mem cimport PyMem_Malloc, PyMem_Free
from libc.stdint cimport int64_t, uint32_t, uint64_t
from libc.string cimport memset, memcpy
from search.board.types cimport Move, MATE
from search.board.board cimport Board, move_to_uci, drop_old_history
from search.tt cimport TranspositionTable, tt_resize, tt_free, tt_clear, tt_new_search
from search.state cimport SearchState
from search.mcts cimport (
    Node, NodePool, MCTSState, NODE_NONE, PROVEN_UNKNOWN, PROVEN_WIN, PROVEN_LOSS, PROVEN_DRAW,
    LEAF_EVAL, LEAF_PLAYOUT, pool_allocate, pool_free, pool_new_root, pool_alloc, pool_keep_subtree,
    ucb_score, select_child, backpropagate, backup_minimax, propagate_proof, best_child, expand,
    mcts_search, probability_to_cp,
)
from search.board.position cimport Position
from search.timeman cimport TimeBudget
from search.searcher cimport Searcher
from search.params cimport load_search_params

import math
from typing import Callable, Dict, List, Optional, Tuple

from search.info import InfoString, SearchResult
from search.limits import MAX_MULTIPV, SearchLimits
from search.searcher import uci_score

LEAF_MODES = ("eval", "playout")
# How far back in the game the previous root may lie for its subtree to be kept.
MAX_REUSE_PLIES = 8
DEFAULT_EXPLORATION = 0.05    # tuned in self-play: 1.41 < 0.5 < 0.2 < 0.1 ~ 0.02 < 0.05 (values in [0, 1])
DEFAULT_PLAYOUT_CAP = 40
DEFAULT_MINIMAX_WEIGHT = 0.0

_PROVEN_NAMES = {PROVEN_UNKNOWN: None, PROVEN_WIN: "win", PROVEN_LOSS: "loss", PROVEN_DRAW: "draw"}
_PROVEN_CODES = {"win": PROVEN_WIN, "loss": PROVEN_LOSS, "draw": PROVEN_DRAW}


cdef int node_value(const Node* n):
    """The internal score of a root child for the side to move: mate scores, or centipawns."""
    if n.proven == PROVEN_WIN:
        return MATE - (n.mate_plies + 1)
    if n.proven == PROVEN_LOSS:
        return -(MATE - (n.mate_plies + 1))
    if n.proven == PROVEN_DRAW or n.visits == 0:
        return 0
    return probability_to_cp(n.value_sum / n.visits)


cdef class MCTSSearcher(Searcher):
    """UCT with an MCTS-Solver over a node pool sized from the Hash option."""

    cdef MCTSState* state
    cdef SearchState* qs
    cdef NodePool pool
    cdef TranspositionTable tt
    cdef public double exploration
    cdef public double minimax_weight
    cdef public int playout_cap
    cdef public bint reuse_tree
    cdef int leaf_code
    cdef int64_t seed_value
    cdef bint full_reported
    cdef bint tree_valid
    cdef bint root_filtered
    cdef uint64_t root_key

    def __cinit__(self, *args, **kwargs):
        self.state = <MCTSState*>PyMem_Malloc(sizeof(MCTSState))
        self.qs = <SearchState*>PyMem_Malloc(sizeof(SearchState))
        if self.state == NULL or self.qs == NULL:
            raise MemoryError()
        memset(self.state, 0, sizeof(MCTSState))
        memset(self.qs, 0, sizeof(SearchState))
        memset(&self.pool, 0, sizeof(NodePool))
        self.tt.entries = NULL
        self.state.signals = &self.control.signals
        self.qs.signals = &self.control.signals

    def __init__(self, hash_mb: int = 16) -> None:
        self.exploration = DEFAULT_EXPLORATION
        self.minimax_weight = DEFAULT_MINIMAX_WEIGHT
        self.playout_cap = DEFAULT_PLAYOUT_CAP
        self.reuse_tree = True
        self.leaf_code = LEAF_EVAL
        self.seed_value = 0
        # The quiescence search at the leaves runs with everything on, as in alpha-beta.
        self.qs.config.tt_cutoffs = True
        self.qs.config.quiescence = True
        self.qs.completed_depth = 1     # lets its stop check see only the stop flag
        Searcher.__init__(self, hash_mb)

    def __dealloc__(self):
        pool_free(&self.pool)
        tt_free(&self.tt)
        PyMem_Free(self.state)
        PyMem_Free(self.qs)

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
    def seed(self) -> int:
        """Seed of the random playouts; the same seed and a fresh tree repeat a search."""
        return self.seed_value

    @seed.setter
    def seed(self, value: int) -> None:
        self.seed_value = int(value)

    cdef int _resize(self, int megabytes) except -1:
        """The node pool takes 7/8 of the Hash, the leaves' quiescence table 1/8; clears the tree."""
        tt_mb = max(1, megabytes // 8)
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
        return self.pool.used

    def clear(self) -> None:
        """Forget the tree and the quiescence table (for ucinewgame)."""
        self.tree_valid = False
        self.pool.used = 0
        tt_clear(&self.tt)
        memset(self.qs.history, 0, sizeof(self.qs.history))

    def hashfull(self) -> int:
        """Pool use in per mille."""
        if self.pool.capacity == 0:
            return 0
        return <int>(<uint64_t>self.pool.used * 1000 // self.pool.capacity)

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
        s.pool_full = False
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
        s.minimax_weight = max(0.0, min(1.0, float(self.minimax_weight)))
        s.leaf_mode = self.leaf_code
        s.playout_cap = max(0, min(int(self.playout_cap), 400))
        s.rng = <uint64_t>self.seed_value
        s.reporter = <void*>self
        s.root = self._prepare_tree(allowed)
        self.tree_valid = False         # until this search leaves a consistent tree
        self.root_key = qs.board.key
        self.root_filtered = bool(allowed)
        self.full_reported = False
        qs.tt = &self.tt
        tt_new_search(&self.tt)
        s.time = budget
        s.playout_limit, s.depth_limit, s.mate_limit = limits.fixed_limits()
        return 0

    cdef void _run(self) noexcept nogil:
        mcts_search(self.state)

    cdef object _finish(self):
        cdef uint32_t best = best_child(&self.pool, self.state.root)
        self.tree_valid = True
        pv = self._pv_from(best)
        value = node_value(&self.pool.nodes[best])
        return SearchResult(pv[0], pv[1] if len(pv) > 1 else None, uci_score(value),
                            self._average_depth(), self.state.playouts, pv, value)

    # ------------------------------------------------------------ results and reports

    cdef list _pv_from(self, uint32_t node):
        """The most visited path from a root child (the proven best where it is proven)."""
        cdef Board* b = &self.qs.board
        pv = []
        while node != NODE_NONE and len(pv) < 64:
            pv.append(move_to_uci(b, self.pool.nodes[node].move))
            if self.pool.nodes[node].child_count == 0:
                break
            node = best_child(&self.pool, node)
            if node != NODE_NONE and self.pool.nodes[node].visits == 0 \
                    and self.pool.nodes[node].proven == PROVEN_UNKNOWN:
                break
        return pv

    cdef list _ranked_root_children(self):
        """Root children, best first by the rule of the final move choice."""
        cdef const Node* root = &self.pool.nodes[self.state.root]
        cdef uint32_t first = best_child(&self.pool, self.state.root)
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
        s = self.state
        if s.playouts == 0:
            return 1
        return max(1, int(round(s.depth_sum / s.playouts)))

    def _report(self, int kind, int depth) -> None:
        """Called from the search with the GIL: a snapshot of the best lines."""
        cdef MCTSState* s = self.state
        cdef uint32_t child
        if self.on_info is None:
            return
        if s.pool_full and not self.full_reported:
            self.full_reported = True
            self._emit(InfoString("node pool full, tree stops growing"))
        depth = self._average_depth()
        ranked = self._ranked_root_children()
        for line in range(min(max(1, min(self.multipv, MAX_MULTIPV)), len(ranked))):
            child = ranked[line]
            self._emit(self._pv_line(depth, s.seldepth, line + 1, node_value(&self.pool.nodes[child]), None,
                                     s.playouts, self._pv_from(child)))

    # ------------------------------------------------------------ inspection

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
                        "proven": _PROVEN_NAMES[c.proven], "mate_plies": c.mate_plies})
        return out


# ---------------------------------------------------------------- speed

def bench(playouts: int = 20000, out: Callable[[str], None] = print) -> Dict[str, float]:
    """Playouts per second in each leaf mode over the bench positions, `playouts` each.

    Prints wall-clock and process-CPU rates (the CPU rate is the fair one on a shared
    machine); returns the CPU rates by mode.  ``python -c "from search.mcts_searcher import bench; bench()"``
    """
    import time
    from search.bench import BENCH_POSITIONS

    rates = {}
    for mode in LEAF_MODES:
        searcher = MCTSSearcher(hash_mb=256)
        searcher.leaf_mode = mode
        searcher.seed = 1
        total, wall, cpu = 0, 0.0, 0.0
        for fen in BENCH_POSITIONS:
            searcher.clear()
            wall_start, cpu_start = time.perf_counter(), time.process_time()
            total += searcher.search(Position(fen), SearchLimits(nodes=playouts)).nodes
            wall += time.perf_counter() - wall_start
            cpu += time.process_time() - cpu_start
        rates[mode] = total / max(cpu, 1e-9)
        out(f"{mode:8s} playouts {total:8d}  wall {wall:6.2f} s {total / max(wall, 1e-9):9.0f}/s"
            f"  cpu {cpu:6.2f} s {rates[mode]:9.0f}/s")
    return rates


# ---------------------------------------------------------------- test hooks

def ucb(parent_visits: int, child_visits: int, value_sum: float, c: float) -> float:
    """UCB1 of a child, as selection computes it (inf for an unvisited child)."""
    cdef double log_n = math.log(parent_visits) if parent_visits > 1 else 0.0
    cdef double score = ucb_score(log_n, child_visits, value_sum, c)
    return math.inf if score >= 1e300 else score


cdef class HandTree:
    """A node pool built by hand, to check selection, backpropagation and the solver."""

    cdef NodePool pool

    def __cinit__(self, *args, **kwargs):
        memset(&self.pool, 0, sizeof(NodePool))

    def __init__(self, capacity: int = 256) -> None:
        if pool_allocate(&self.pool, max(256, int(capacity)) * (sizeof(Node) + sizeof(uint32_t))) != 0:
            raise MemoryError()
        pool_new_root(&self.pool)

    def __dealloc__(self):
        pool_free(&self.pool)

    def _check(self, node: int) -> int:
        if not 0 <= node < self.pool.used:
            raise IndexError(f"no node {node}")
        return node

    def add_children(self, parent: int, count: int) -> List[int]:
        """Give a leaf `count` children (moves 1..count); their indices."""
        cdef uint32_t p = self._check(parent), first, i
        if self.pool.nodes[p].child_count:
            raise ValueError("node already has children")
        first = pool_alloc(&self.pool, count)
        if first == NODE_NONE:
            raise MemoryError("hand tree full")
        for i in range(count):
            memset(&self.pool.nodes[first + i], 0, sizeof(Node))
            self.pool.nodes[first + i].parent = p
            self.pool.nodes[first + i].first_child = NODE_NONE
            self.pool.nodes[first + i].minimax = 0.5
            self.pool.nodes[first + i].move = <Move>(i + 1)
        self.pool.nodes[p].first_child = first
        self.pool.nodes[p].child_count = count
        return list(range(first, first + count))

    def set_stats(self, node: int, visits: int, value_sum: float) -> None:
        self._check(node)
        self.pool.nodes[node].visits = visits
        self.pool.nodes[node].value_sum = value_sum

    def stats(self, node: int) -> Tuple[int, float]:
        self._check(node)
        return self.pool.nodes[node].visits, self.pool.nodes[node].value_sum

    def parent(self, node: int) -> Optional[int]:
        cdef uint32_t p = self.pool.nodes[self._check(node)].parent
        return None if p == NODE_NONE else p

    def select(self, node: int, c: float, minimax_weight: float = 0.0) -> Optional[int]:
        """The child UCB1 selection picks, None if none can be picked."""
        cdef uint32_t chosen = select_child(&self.pool, self._check(node), c, minimax_weight)
        return None if chosen == NODE_NONE else chosen

    def backpropagate(self, node: int, value: float) -> None:
        """Back up `value` (for the player who moved into `node`) to the root, minimax values too."""
        backpropagate(&self.pool, self._check(node), value)
        backup_minimax(&self.pool, node, value)

    def minimax(self, node: int) -> float:
        return self.pool.nodes[self._check(node)].minimax

    def prove(self, node: int, result: str, mate_plies: int = 0) -> None:
        """Mark a leaf as a terminal result (for the player who moved into it) and propagate."""
        self._check(node)
        self.pool.nodes[node].proven = _PROVEN_CODES[result]
        self.pool.nodes[node].mate_plies = mate_plies
        propagate_proof(&self.pool, node, 0)

    def proven(self, node: int) -> Tuple[Optional[str], int]:
        self._check(node)
        return _PROVEN_NAMES[self.pool.nodes[node].proven], self.pool.nodes[node].mate_plies

    def best_child(self, node: int) -> Optional[int]:
        cdef uint32_t chosen = best_child(&self.pool, self._check(node))
        return None if chosen == NODE_NONE else chosen

    def keep_subtree(self, node: int) -> int:
        """Compact the pool to the subtree under `node`; returns the pool's new size."""
        pool_keep_subtree(&self.pool, self._check(node))
        return self.pool.used
