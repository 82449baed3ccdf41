"""The MCTS node pool (see mcts_pool.pxd): its memory, fresh roots and blocks of children, and
the compaction that keeps a subtree for the next search or makes room in a full pool."""

from libc.stdlib cimport malloc, free
from libc.stdint cimport uint32_t, uint64_t
from search.board.types cimport MOVE_NONE

cdef extern from "aligned.h" nogil:
    void* aligned_calloc "kestrel_aligned_calloc"(size_t nbytes, void** block)

cdef enum:
    MAX_CAPACITY = 0xFFFFFFF0
    MAX_THRESHOLD = 0x40000000     # (visit thresholds double up to here, never overflowing)


cdef int pool_allocate(NodePool* p, uint64_t nbytes) noexcept nogil:
    """Room for as many nodes (and their compaction scratch) as fit in `nbytes`; clears the tree."""
    cdef uint64_t count = nbytes // (sizeof(Node) + sizeof(uint32_t))
    cdef Node* nodes
    cdef void* node_block
    cdef uint32_t* remap
    if count < 256:
        count = 256
    if count > MAX_CAPACITY:
        count = MAX_CAPACITY
    nodes = <Node*>aligned_calloc(count * sizeof(Node), &node_block)
    remap = <uint32_t*>malloc(count * sizeof(uint32_t))
    if nodes == NULL or remap == NULL:
        free(node_block)
        free(remap)
        return -1
    pool_free(p)
    p.nodes = nodes
    p.node_block = node_block
    p.remap = remap
    p.capacity = <uint32_t>count
    p.used = 0
    return 0


cdef void pool_free(NodePool* p) noexcept nogil:
    free(p.node_block)
    free(p.remap)
    p.node_block = NULL
    p.nodes = NULL
    p.remap = NULL
    p.capacity = 0
    p.used = 0


cdef uint32_t pool_alloc(NodePool* p, uint32_t count) noexcept nogil:
    """The index of `count` consecutive fresh nodes, or NODE_NONE when the pool is full.

    Threads allocate at the same time, so the bump pointer moves by compare-and-swap, and
    only when the block fits: a fetch_add would push `used` past the capacity on a failed
    request, and compaction, reports and the next allocations all trust `used`.
    """
    cdef uint32_t first
    if count == 0:
        return NODE_NONE
    while True:
        first = load_u32(&p.used)
        if <uint64_t>first + count > p.capacity:
            return NODE_NONE
        if cas_u32(&p.used, first, first + count):
            return first


cdef uint32_t pool_used(const NodePool* p) noexcept nogil:
    """Nodes allocated so far (safe to read while threads allocate)."""
    return load_u32(&p.used)


cdef bint node_expanded(const Node* n) noexcept nogil:
    """Whether the node's children are published: then child_count and first_child can be read."""
    return load_u8_acquire(&n.stage) == STAGE_EXPANDED


cdef uint32_t pool_new_root(NodePool* p) noexcept nogil:
    """Forget the tree and start a new one with a bare root."""
    p.used = 0
    cdef uint32_t root = pool_alloc(p, 1)
    if root != NODE_NONE:
        init_node(&p.nodes[root], NODE_NONE, MOVE_NONE)
    return root


cdef inline bint children_kept(const NodePool* p, uint32_t node, uint32_t root, uint32_t threshold) noexcept nogil:
    """Whether recycling at `threshold` keeps this kept node's children."""
    return node == root or p.nodes[node].visits >= threshold


cdef uint32_t mark_kept(NodePool* p, uint32_t root, uint32_t threshold) noexcept nogil:
    """Number every node that recycling at `threshold` keeps in p.remap (its new index; NODE_NONE
    for a dropped one) and return how many there are.  A node is kept when its parent is kept
    and keeps its children; parents come before their children, so one pass in index order does."""
    cdef uint32_t i, count = 0, parent
    for i in range(root, p.used):
        parent = p.nodes[i].parent
        if i == root or (parent != NODE_NONE and parent >= root and p.remap[parent] != NODE_NONE
                         and children_kept(p, parent, root, threshold)):
            p.remap[i] = count
            count += 1
        else:
            p.remap[i] = NODE_NONE
    return count


cdef void compact(NodePool* p, uint32_t root, uint32_t threshold, uint32_t count) noexcept nogil:
    """Move the `count` nodes that mark_kept(p, root, threshold) has just numbered to the front of
    the pool, the root at index 0: the tree under `root` less the children of nodes visited fewer
    than `threshold` times (0: the whole subtree).

    A child block is always allocated after its parent, so kept nodes keep their order and
    moving each one down to its rank never overwrites a node not yet moved.  A node whose
    children go is a leaf again (STAGE_LEAF) with its visits, value and proof.
    """
    cdef uint32_t i
    cdef Node n
    for i in range(root, p.used):
        if p.remap[i] == NODE_NONE:
            continue
        n = p.nodes[i]
        n.parent = NODE_NONE if i == root else p.remap[n.parent]
        if n.child_count > 0 and children_kept(p, i, root, threshold):
            n.first_child = p.remap[n.first_child]
        elif n.child_count > 0:
            n.first_child = NODE_NONE
            n.child_count = 0
            n.stage = STAGE_LEAF
        p.nodes[p.remap[i]] = n
    p.used = count


cdef uint32_t pool_recycle(NodePool* p, uint32_t root, uint32_t target) noexcept nogil:
    """Make room in a full pool: the smallest power-of-two visit count at which dropping the
    children of every node visited fewer times leaves at most `target` nodes, then compaction.

    The root always keeps its children.  The next walk that reaches a node whose children
    went expands it afresh, so the lines that matter grow deeper while the ones nobody
    visits give up their room.
    """
    cdef uint32_t threshold = 2, root_visits = p.nodes[root].visits
    cdef uint32_t count = mark_kept(p, root, threshold)
    while count > target and threshold <= root_visits and threshold < MAX_THRESHOLD:
        threshold *= 2
        count = mark_kept(p, root, threshold)
    compact(p, root, threshold, count)
    return threshold


cdef uint32_t pool_keep_subtree(NodePool* p, uint32_t new_root) noexcept nogil:
    """Keep only the subtree under `new_root`, moved to the front of the pool; returns its new index (0).

    Only while no search thread runs (the searcher calls it before it starts any).
    """
    compact(p, new_root, 0, mark_kept(p, new_root, 0))
    return 0
