"""The MCTS core's C pieces that tests reach directly (tests/mcts_internals.py imports them).

Compiled on first use against this checkout's headers (tests/compiled.py), so the engine
ships none of it: a node pool built by hand, UCB1 and the value curves as the C computes
them, the refresh schedule, and two reaches into a searcher (search/mcts_searcher.pxd): a move
put in its table, and its favourite's verification run by hand.
"""

import math

from libc.stdint cimport uint32_t
from libc.string cimport memset
from search.board.types cimport Move, MoveList, MOVE_NONE
from search.board.board cimport move_to_uci
from search.board.movegen cimport parse_uci_move
from search.board.position cimport Position
from search.tt cimport tt_store, BOUND_LOWER
from search.timeman cimport TimeBudget
from search.mcts cimport verify_tree_move
from search.mcts_searcher cimport MCTSSearcher
from search.mcts_pool cimport (
    Node, NodePool, NODE_NONE, PROVEN_UNKNOWN, PROVEN_WIN, PROVEN_LOSS, PROVEN_DRAW, PRIOR_ONE, STAGE_EXPANDED,
    pool_allocate, pool_free, pool_new_root, pool_alloc, pool_keep_subtree, pool_recycle,
)
from search.mcts_state cimport (
    MAX_TREE_DEPTH as C_MAX_TREE_DEPTH, VERIFY_MARGIN, DECISIVE_SCORE, REFRESH_MAX_DEPTH, ROOT_REFRESH_EXTRA,
    ROOT_REFRESH_MAX_DEPTH, VERIFY_NONE,
)
from search.mcts_select cimport ucb_score, select_child, select_child_puct, best_child
from search.mcts_backup cimport backpropagate, propagate_proof
from search.mcts_expand cimport refresh_depth
from search.mcts_value cimport VALUE_MODEL_LOGISTIC, VALUE_MODEL_WDL, probability_to_score, score_to_probability

from search.mcts_searcher import VERIFICATIONS

MAX_TREE_DEPTH = C_MAX_TREE_DEPTH      # deeper leaves are valued, never expanded
VERIFY_MARGIN_CP = VERIFY_MARGIN       # how far below the root search's score a favourite is refuted
DECISIVE_SCORE_CP = DECISIVE_SCORE     # from this root search score on, its move is played
VALUE_MODELS = {"wdl": VALUE_MODEL_WDL, "logistic": VALUE_MODEL_LOGISTIC}
_PROVEN_NAMES = {PROVEN_UNKNOWN: None, PROVEN_WIN: "win", PROVEN_LOSS: "loss", PROVEN_DRAW: "draw"}
_PROVEN_CODES = {"win": PROVEN_WIN, "loss": PROVEN_LOSS, "draw": PROVEN_DRAW}


def ucb(parent_visits, child_visits, value_sum, c):
    """UCB1 of a child, as selection computes it (inf for an unvisited child)."""
    cdef double log_n = math.log(parent_visits) if parent_visits > 1 else 0.0
    cdef double score = ucb_score(log_n, child_visits, value_sum, c)
    return math.inf if score >= 1e300 else score


def win_probability(cp, model, material):
    """A leaf score as the expected result the tree backs up ('wdl' or 'logistic')."""
    return score_to_probability(cp, VALUE_MODELS[model], material)


def score_of_probability(q, model, material):
    """The inverse of win_probability, as reports use it."""
    return probability_to_score(q, VALUE_MODELS[model], material)


def store_tt_move(MCTSSearcher searcher, Position position not None, str move):
    """Put `move` in `searcher`'s table as the best move of `position`: its priors then see a table move."""
    cdef MoveList moves
    cdef Move m
    searcher._set_position(position, &moves)
    m = parse_uci_move(&searcher.qs.board, move)
    if m == MOVE_NONE:
        raise ValueError(f"{move!r} is not legal here")
    tt_store(&searcher.tt, searcher.qs.board.key, 1, 0, BOUND_LOWER, m, 0)


def verify_favourite(MCTSSearcher s):
    """Run `verified_move`'s check on the last search's tree now, untimed (a search runs it itself
    when the switch is on and a clock ends it): what it did, as `verification` says it, and the
    move it would play."""
    if not s.tree.valid or best_child(&s.tree.pool, s.state.root) == NODE_NONE:
        raise ValueError("no search has left a tree with moves to check")
    memset(&s.qs.time, 0, sizeof(TimeBudget))
    s.qs.stopped = False
    s.state.verification = VERIFY_NONE
    s.state.verified_child = NODE_NONE
    with nogil:
        verify_tree_move(s.state)
    return VERIFICATIONS[s.state.verification], move_to_uci(&s.qs.board, s.tree.pool.nodes[s._chosen_child()].move)


def prior_refresh_depth(visits, root=False, deep_root_refresh=False):
    """The plies of the search that refreshes a node's priors when it has `visits` visits
    (`refresh_priors`), 0 when none does; the root's differ with `deep_root_refresh`."""
    if not 0 <= visits < 2**32:
        raise ValueError(f"visits out of range: {visits}")
    if root and deep_root_refresh:
        return refresh_depth(visits, ROOT_REFRESH_EXTRA, ROOT_REFRESH_MAX_DEPTH)
    return refresh_depth(visits, 0, REFRESH_MAX_DEPTH)


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
        if not 1 <= count <= 255:
            raise ValueError("a node has 1 to 255 children")
        first = pool_alloc(&self.pool, count)
        if first == NODE_NONE:
            raise MemoryError("hand tree full")
        for i in range(count):
            memset(&self.pool.nodes[first + i], 0, sizeof(Node))
            self.pool.nodes[first + i].parent = p
            self.pool.nodes[first + i].first_child = NODE_NONE
            self.pool.nodes[first + i].prior = <uint32_t>(PRIOR_ONE // count)
            self.pool.nodes[first + i].move = <Move>(i + 1)
        self.pool.nodes[p].first_child = first
        self.pool.nodes[p].child_count = count
        self.pool.nodes[p].stage = STAGE_EXPANDED
        return list(range(first, first + count))

    def set_stats(self, node: int, visits: int, value_sum: float) -> None:
        self._check(node)
        self.pool.nodes[node].visits = visits
        self.pool.nodes[node].value_sum = value_sum

    def set_prior(self, node: int, prior: float) -> None:
        """The node's prior, stored as selection reads it (in 1/65535ths, at least 1)."""
        self._check(node)
        self.pool.nodes[node].prior = max(1, min(PRIOR_ONE, int(round(prior * PRIOR_ONE))))

    def prior(self, node: int) -> float:
        return self.pool.nodes[self._check(node)].prior / <double>PRIOR_ONE

    def stats(self, node: int) -> Tuple[int, float]:
        self._check(node)
        return self.pool.nodes[node].visits, self.pool.nodes[node].value_sum

    def parent(self, node: int) -> Optional[int]:
        cdef uint32_t p = self.pool.nodes[self._check(node)].parent
        return None if p == NODE_NONE else p

    def select(self, node: int, c: float) -> Optional[int]:
        """The child UCB1 selection picks, None if none can be picked."""
        cdef uint32_t chosen = select_child(&self.pool, self._check(node), c)
        return None if chosen == NODE_NONE else chosen

    def select_puct(self, node: int, c_puct: float, fpu_reduction: float = 0.0) -> Optional[int]:
        """The child PUCT selection picks, None if none can be picked."""
        cdef uint32_t chosen = select_child_puct(&self.pool, self._check(node), c_puct, fpu_reduction)
        return None if chosen == NODE_NONE else chosen

    def backpropagate(self, node: int, value: float) -> None:
        """Back up `value` (for the player who moved into `node`) to the root."""
        backpropagate(&self.pool, self._check(node), value, 0)

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

    def recycle(self, target: int) -> Tuple[int, int]:
        """Drop the least visited subtrees until at most `target` nodes are left:
        (the visit threshold used, the pool's new size)."""
        cdef uint32_t threshold = pool_recycle(&self.pool, 0, max(1, int(target)))
        return threshold, self.pool.used

    def children(self, node: int) -> List[int]:
        cdef const Node* n = &self.pool.nodes[self._check(node)]
        return list(range(n.first_child, n.first_child + n.child_count)) if n.child_count else []
