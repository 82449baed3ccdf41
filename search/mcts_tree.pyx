"""The tree of an MCTS searcher between its searches (see mcts_tree.pxd): ``MCTSTree``."""

from collections import namedtuple

from libc.string cimport memset
from search.board.types cimport Move, MATE
from search.mcts_pool cimport (
    Node, PROVEN_UNKNOWN, PROVEN_WIN, PROVEN_LOSS, PROVEN_DRAW, PRIOR_ONE,
    STAGE_NEW, STAGE_CHECKING, STAGE_LEAF, STAGE_EXPANDING, STAGE_EXPANDED,
    pool_allocate, pool_free, pool_new_root, pool_keep_subtree, pool_used, node_expanded,
)
from search.mcts_select cimport best_child
from search.mcts_expand cimport expand
from search.board.board cimport move_to_uci
from search.mcts_value cimport probability_to_score

from search.mcts_settings import MAX_REUSE_PLIES

PROVEN_NAMES = {PROVEN_UNKNOWN: None, PROVEN_WIN: "win", PROVEN_LOSS: "loss", PROVEN_DRAW: "draw"}
STAGE_NAMES = {STAGE_NEW: "new", STAGE_CHECKING: "checking", STAGE_LEAF: "leaf", STAGE_EXPANDING: "expanding",
               STAGE_EXPANDED: "expanded"}
# A node of MCTSSearcher.tree_nodes(): parent and first_child are None where there is none.
TreeNode = namedtuple("TreeNode", "parent first_child child_count stage visits value_sum proven")


cdef class MCTSTree:
    """The node pool of one MCTS searcher, and what its searches leave in it."""

    def __cinit__(self):
        memset(&self.pool, 0, sizeof(NodePool))
        self.valid = False
        self.was_full = False
        self.root_filtered = False
        self.root_key = 0

    def __dealloc__(self):
        pool_free(&self.pool)

    cdef int allocate(self, uint64_t nbytes) noexcept:
        if pool_allocate(&self.pool, nbytes) != 0:
            return -1
        self.valid = False
        return 0

    def clear(self) -> None:
        """Forget the tree."""
        self.valid = False
        self.pool.used = 0

    @property
    def capacity(self) -> int:
        """How many nodes the pool holds at most."""
        return self.pool.capacity

    @property
    def used(self) -> int:
        """Nodes in the tree now."""
        return pool_used(&self.pool)

    cdef uint32_t prepare_root(self, MCTSState* s, Board* b, list allowed, bint reuse) except? NODE_NONE:
        cdef uint32_t node
        cdef int j
        cdef Move moves[256]
        node = self._kept_root(s.root, b) if self.valid and reuse and not allowed else NODE_NONE
        if node != NODE_NONE:
            node = pool_keep_subtree(&self.pool, node)
        else:
            node = pool_new_root(&self.pool)
            self.was_full = False
            for j in range(len(allowed)):
                moves[j] = allowed[j]
            if expand(s, node, moves if allowed else NULL, len(allowed)) == NODE_NONE:
                raise MemoryError("the node pool cannot hold the root's moves")
        self.valid = False          # until this search leaves a consistent tree
        self.root_key = b.key
        self.root_filtered = bool(allowed)
        return node

    cdef uint32_t _kept_root(self, uint32_t root, Board* b):
        """The node of the last search's tree (rooted at `root`) that stands for `b`, reached by
        the moves played since, if it has children; else NODE_NONE."""
        cdef uint32_t node, child, i
        cdef int k, j
        cdef uint64_t key
        cdef Move m
        for k in range(0, min(MAX_REUSE_PLIES, b.game_ply) + 1):
            key = b.key if k == 0 else b.history[b.game_ply - k].key
            if key != self.root_key or (k == 0 and self.root_filtered):
                continue
            node = root
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
                return node
            break
        return NODE_NONE

    cdef void search_done(self, const MCTSShared* shared):
        self.valid = True
        self.was_full = self.was_full or shared.pool_full or shared.recycles > 0

    cdef list pv_from(self, uint32_t node, Board* b):
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

    cdef list ranked_children(self, uint32_t root, uint32_t chosen):
        cdef const Node* n = &self.pool.nodes[root]
        cdef uint32_t i
        cdef const Node* c
        keyed = []
        for i in range(n.child_count):
            c = &self.pool.nodes[n.first_child + i]
            if c.proven == PROVEN_WIN:
                key = (3, -c.mate_plies, 0.0)
            elif c.proven == PROVEN_LOSS:
                key = (1, c.mate_plies, 0.0)
            else:
                key = (2, c.visits, c.value_sum / c.visits if c.visits else 0.0)
            keyed.append((n.first_child + i != chosen, tuple(-x for x in key), i))
        keyed.sort()
        return [n.first_child + entry[2] for entry in keyed]

    cdef int node_score(self, uint32_t node, int model, int material):
        cdef const Node* n = &self.pool.nodes[node]
        if n.proven == PROVEN_WIN:
            return MATE - (n.mate_plies + 1)
        if n.proven == PROVEN_LOSS:
            return -(MATE - (n.mate_plies + 1))
        if n.proven == PROVEN_DRAW or n.visits == 0:
            return 0
        return probability_to_score(n.value_sum / n.visits, model, material)

    cdef list root_children(self, uint32_t root, Board* b):
        cdef const Node* n = &self.pool.nodes[root]
        cdef const Node* c
        cdef uint32_t i
        out = []
        if not self.valid:
            return out
        for i in range(n.child_count):
            c = &self.pool.nodes[n.first_child + i]
            out.append({"move": move_to_uci(b, c.move), "visits": c.visits,
                        "value": c.value_sum / c.visits if c.visits else None,
                        "prior": c.prior / <double>PRIOR_ONE,
                        "proven": PROVEN_NAMES[c.proven], "mate_plies": c.mate_plies})
        return out

    def nodes(self) -> list:
        """Every node of the pool, in pool order (the root first), as TreeNode records."""
        cdef uint32_t i
        cdef const Node* n
        out = []
        for i in range(pool_used(&self.pool)):
            n = &self.pool.nodes[i]
            out.append(TreeNode(None if n.parent == NODE_NONE else n.parent,
                                None if n.first_child == NODE_NONE else n.first_child, n.child_count,
                                STAGE_NAMES[n.stage], n.visits, n.value_sum, PROVEN_NAMES[n.proven]))
        return out
