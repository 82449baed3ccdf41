# The MCTS node pool: the node, the pool it lives in, and the atomics every MCTS module uses on it.
#
# Nodes live in one C array (the pool) sized from the Hash option; a node's children are a
# contiguous block of it, so a node needs only the index of its first child and their count.
# A node's statistics are kept from the view of the player who made the move leading to it,
# so a parent picks the child with the best value as it is.
#
# Several threads may grow one tree at once (Threads > 1), without the GIL and without
# locks: the fields they share are changed through the atomics of atomics.h, declared here
# once for the MCTS modules.  A node's `stage` is claimed by compare-and-swap, so that one
# thread checks a new node for the end of the game, one expands it, and nobody reads
# children before they are published.  docs/mcts.md, "Threads".

from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t
from search.board.types cimport Move

# Lock-free rather than per-node spin locks: a playout changes two counters on each node of
# its path, and an atomic add is one instruction where a lock would be two writes and a wait
# behind a thread that the (busy, shared) machine may have descheduled while it held it.
cdef extern from "atomics.h" nogil:
    uint8_t load_u8_acquire "kestrel_load_u8_acquire"(const uint8_t* p)
    void store_u8_release "kestrel_store_u8_release"(uint8_t* p, uint8_t v)
    bint cas_u8 "kestrel_cas_u8"(uint8_t* p, uint8_t expected, uint8_t desired)
    uint32_t load_u32 "kestrel_load_u32"(const uint32_t* p)
    void store_u32 "kestrel_store_u32"(uint32_t* p, uint32_t v)
    void add_u32 "kestrel_add_u32"(uint32_t* p, uint32_t v)
    bint cas_u32 "kestrel_cas_u32"(uint32_t* p, uint32_t expected, uint32_t desired)
    uint64_t load_u64 "kestrel_load_u64"(const uint64_t* p)
    void store_u64 "kestrel_store_u64"(uint64_t* p, uint64_t v)
    void add_u64 "kestrel_add_u64"(uint64_t* p, uint64_t v)
    double load_f64 "kestrel_load_f64"(const double* p)
    void add_f64 "kestrel_add_f64"(double* p, double v)
    int load_int "kestrel_load_int"(const int* p)
    void add_int "kestrel_add_int"(int* p, int v)
    void max_int "kestrel_max_int"(int* p, int v)
    void cpu_relax "kestrel_cpu_relax"()
    void yield_thread "kestrel_yield"()

cdef enum:
    NODE_NONE = 0xFFFFFFFF

cdef enum:
    # Proven game-theoretic results, from the view of the player who moved into the node.
    PROVEN_UNKNOWN = 0
    PROVEN_WIN = 1
    PROVEN_LOSS = 2
    PROVEN_DRAW = 3

cdef enum:
    PRIOR_ONE = 65535    # a prior is stored in 1/65535ths: the node stays 32 bytes

cdef enum:
    # A node's life, for threads that reach it at the same time (changed by compare-and-swap
    # or a release store, read with acquire: once a thread sees EXPANDED, the children are there).
    STAGE_NEW = 0        # no thread has reached it yet
    STAGE_CHECKING = 1   # its first visitor is checking whether the game ends there (others wait)
    STAGE_LEAF = 2       # visited, no children: the next visitor expands it (values it, if a stop cut the visit off)
    STAGE_EXPANDING = 3  # one thread is making its children (others wait, then walk on below it)
    STAGE_EXPANDED = 4   # first_child and child_count are valid for good


# 28 bytes of fields, 32 with the padding the double's alignment adds: two nodes to a cache line.
cdef struct Node:
    double value_sum       # sum of results in [0, 1] for the player who moved into the node
    uint32_t visits        # playouts backed up through it, plus VIRTUAL_LOSS per thread walking through it
    uint32_t parent        # NODE_NONE at the root
    uint32_t first_child   # valid when child_count > 0 (and, with threads, stage is STAGE_EXPANDED)
    uint8_t child_count    # 0: not expanded (a leaf, or a terminal position); legal moves are at most 218
    uint8_t stage          # STAGE_*
    Move move              # the move that leads here (MOVE_NONE at the root)
    uint16_t prior         # P(move) in 1/PRIOR_ONE, at least 1 (uniform under UCT)
    uint8_t mate_plies     # for a proven win/loss: plies from this node to the mate (< MAX_PLY)
    uint8_t proven         # PROVEN_*


cdef struct NodePool:
    Node* nodes            # on a cache line, so a node never straddles two
    void* node_block       # what was allocated for them, to free
    uint32_t* remap        # scratch for compaction when a subtree is kept (part of the budget)
    uint32_t capacity
    uint32_t used          # the bump pointer: advanced by compare-and-swap, never past capacity


# Room for as many nodes (and their compaction scratch) as `nbytes` hold; 0 on success, -1 with
# the pool unchanged when the memory is not there.  Clears the tree.
cdef int pool_allocate(NodePool* p, uint64_t nbytes) noexcept nogil
cdef void pool_free(NodePool* p) noexcept nogil
# Forget the tree and start a new one with a bare root; its index.
cdef uint32_t pool_new_root(NodePool* p) noexcept nogil
# `count` consecutive fresh nodes (not yet initialised: init_node), or NODE_NONE when the pool is full.
cdef uint32_t pool_alloc(NodePool* p, uint32_t count) noexcept nogil
# Keep only the subtree under `new_root`, moved to the front; its new index.  No thread may be running.
cdef uint32_t pool_keep_subtree(NodePool* p, uint32_t new_root) noexcept nogil
cdef uint32_t pool_used(const NodePool* p) noexcept nogil
# Drop the children of the least visited expanded nodes (never the root's) until at most
# `target` nodes remain, compacted; those nodes become leaves with their statistics kept.
# Returns the visit threshold used.  No thread may be walking (the main thread pauses them).
cdef uint32_t pool_recycle(NodePool* p, uint32_t root, uint32_t target) noexcept nogil
cdef bint node_expanded(const Node* n) noexcept nogil     # its children can be read (acquire)


cdef inline void init_node(Node* n, uint32_t parent, Move m) noexcept nogil:
    """A fresh node reached from `parent` by `m`: no visits, no children, no proof."""
    n.value_sum = 0.0
    n.visits = 0
    n.parent = parent
    n.first_child = NODE_NONE
    n.child_count = 0
    n.stage = STAGE_NEW
    n.move = m
    n.prior = PRIOR_ONE
    n.mate_plies = 0
    n.proven = PROVEN_UNKNOWN


cdef inline int proven_of(const Node* n) noexcept nogil:
    """A node's PROVEN_*; acquire, so that its mate_plies (written before) can be read after."""
    return load_u8_acquire(&n.proven)


cdef inline void set_proven(Node* n, int result, int mate_plies) noexcept nogil:
    """Publish a proof: the distance first, then the result that makes readers look at it."""
    n.mate_plies = <uint8_t>mate_plies
    store_u8_release(&n.proven, <uint8_t>result)


cdef inline double result_value(int proven) noexcept nogil:
    """The result of a proven node (PROVEN_*) for the player who moved into it."""
    if proven == PROVEN_WIN:
        return 1.0
    if proven == PROVEN_LOSS:
        return 0.0
    return 0.5


cdef inline double exact_value(const Node* n) noexcept nogil:
    """The result of a proven node for the player who moved into it."""
    return result_value(proven_of(n))
