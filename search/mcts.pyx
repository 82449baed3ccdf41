"""Monte Carlo tree search over the C board, without the GIL.

One iteration walks from the root to a leaf by PUCT (or UCB1), expands the leaf when
it is reached for the second time (children for all legal moves, in one block of the
pool, each with its prior), gives the new leaf a value (a short alpha-beta search's
score as a win probability, or a random playout), and adds that value along the path,
flipped at every ply.  Checkmate, stalemate and draws by rule are exact; such results
move up the tree (MCTS-Solver), and a proven node is never expanded or simulated again.

With several threads every one of them runs these iterations on the same pool, each on
its own board: see "Threads" in docs/mcts.md for the virtual loss, the atomics and the
protocol that lets exactly one thread check or expand a node.
"""

from libc.math cimport log, sqrt
from libc.stdlib cimport malloc, free
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t, int64_t
from search.board.types cimport (
    Move, MoveList, MOVE_NONE, MAX_MOVES, MATE_IN_MAX_PLY, VALUE_INFINITE, VALUE_NONE, NO_PIECE, PAWN,
    MOVE_EN_PASSANT, move_from, move_to, move_kind, is_promotion, piece_type_of,
)
from search.board.board cimport Board, do_move, undo_move
from search.board.movegen cimport generate_legal, has_legal_move
from search.board.rules cimport is_draw_by_rule
from search.alphabeta cimport quiescence, negamax
from search.ordering cimport record_move
from search.tt cimport TTEntry, tt_probe, score_from_tt, BOUND_EXACT
from search.board.see cimport SEE_VALUE
from search.mcts_priors cimport move_priors
from search.mcts_value cimport board_material, score_to_probability, cp_to_probability
from eval.evaluator cimport evaluate_position

from search.control cimport REPORT_ITERATION, REPORT_FINAL, report_progress
from search.timeman cimport (
    elapsed_ms, soft_budget_spent, may_stop_early, node_share_factor,
)

cdef extern from "clock.h" nogil:
    int load_flag "kestrel_load_flag"(int* flag)
    void store_flag "kestrel_store_flag"(int* flag, int value)
    void sleep_ms "kestrel_sleep_ms"(int ms)

# Lock-free rather than per-node spin locks: a playout changes two counters on each node of
# its path, and an atomic add is one instruction where a lock would be two writes and a wait
# behind a thread that the (busy, shared) machine may have descheduled while it held it.
cdef extern from "aligned.h" nogil:
    void* aligned_calloc "kestrel_aligned_calloc"(size_t nbytes, void** block)

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
    REPORT_INTERVAL_MS = 1000
    MAX_CAPACITY = 0xFFFFFFF0
    SPINS_BEFORE_YIELD = 64        # waiting for another thread's expansion: spin a little, then yield
    RECYCLE_KEEP_PERCENT = 50      # a full pool is recycled down to at most this share of its nodes
    MAX_THRESHOLD = 0x40000000     # (visit thresholds double up to here, never overflowing)
    ROOT_SCORE_OFFSET = 32768      # a packed root search score is stored as score + this (16 bits)


# ---------------------------------------------------------------- the pool

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


cdef inline void init_node(Node* n, uint32_t parent, Move m) noexcept nogil:
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


# ---------------------------------------------------------------- selection

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


cdef double ucb_score(double log_parent_visits, uint32_t visits, double value_sum,
                      double c) noexcept nogil:
    """UCB1: the mean result plus c * sqrt(ln N / n); an unvisited child comes first."""
    if visits == 0:
        return 1e300
    return value_sum / visits + c * sqrt(log_parent_visits / visits)


cdef uint32_t select_child(const NodePool* p, uint32_t node, double c) noexcept nogil:
    """The child with the highest UCB1 score; proven losses are never chosen again.

    A proven draw or win can still be chosen: it is not explored, its exact value is
    backed up, so that its visits show what it is worth next to the other moves.
    """
    cdef const Node* n = &p.nodes[node]
    cdef const Node* child
    cdef uint32_t parent_visits = load_u32(&n.visits), visits
    cdef double log_n = log(<double>parent_visits) if parent_visits > 1 else 0.0
    cdef double score, best_score = -1e308, value_sum
    cdef uint32_t i, index, best = NODE_NONE
    cdef int proven
    for i in range(n.child_count):
        index = n.first_child + i
        child = &p.nodes[index]
        proven = proven_of(child)
        if proven == PROVEN_LOSS:
            continue
        # Each statistic is read once: other threads change them meanwhile.
        visits = load_u32(&child.visits)
        if proven != PROVEN_UNKNOWN:
            value_sum = result_value(proven) * visits
        else:
            value_sum = load_f64(&child.value_sum)
        score = ucb_score(log_n, visits, value_sum, c)
        if score > best_score:
            best_score = score
            best = index
    return best


cdef uint32_t select_child_puct(const NodePool* p, uint32_t node, double c_puct, double fpu_reduction) noexcept nogil:
    """The child with the highest PUCT score (AlphaZero's rule: the value plus
    c * P * sqrt(N) / (1 + n)); proven losses are never chosen again.

    An unvisited child is valued at the parent's mean for the side to move, less
    `fpu_reduction` (first-play urgency): it is tried once its prior's bonus outweighs
    that doubt, so a node need not try its thirty quiet moves before a second look at
    the capture that wins.
    """
    cdef const Node* n = &p.nodes[node]
    cdef const Node* child
    cdef uint32_t parent_visits = load_u32(&n.visits), visits
    cdef double parent_sum = load_f64(&n.value_sum)
    cdef double sqrt_n = sqrt(<double>parent_visits)
    # PUCT's c * P * sqrt(N) / (1 + n) with the node's common factors taken out of the loop:
    # the priors are stored in 1/PRIOR_ONE.  This loop is the search's hottest, and divisions
    # are most of its cost.
    cdef double exploration_scale = c_puct * sqrt_n / PRIOR_ONE
    # The parent's statistics are for the player who moved into it, the other side.  Other
    # threads' virtual losses count in its visits: a busy parent's unvisited moves look better.
    cdef double fpu = (1.0 - parent_sum / parent_visits if parent_visits > 0 else 0.5) - fpu_reduction
    cdef double score, best_score = -1e308, n_child
    cdef uint32_t i, index, best = NODE_NONE
    cdef int proven
    for i in range(n.child_count):
        index = n.first_child + i
        child = &p.nodes[index]
        proven = proven_of(child)
        if proven == PROVEN_LOSS:
            continue
        # Each statistic is read once: other threads change them meanwhile.
        visits = load_u32(&child.visits)
        if proven != PROVEN_UNKNOWN:
            score = result_value(proven) + exploration_scale * child.prior / (1.0 + visits)
        elif visits == 0:
            score = fpu + exploration_scale * child.prior
        else:
            # The mean plus the bonus over one common denominator: one division, not two.
            n_child = <double>visits
            score = (load_f64(&child.value_sum) * (n_child + 1.0) + exploration_scale * child.prior * n_child) \
                / (n_child * (n_child + 1.0))
        if score > best_score:
            best_score = score
            best = index
    return best


# ---------------------------------------------------------------- backpropagation and the solver

cdef void backpropagate(NodePool* p, uint32_t node, double value, uint32_t virtual_loss) noexcept nogil:
    """Add a result (for the player who moved into `node`) to every node up to the root, one
    visit that replaces the `virtual_loss` visits the walk down added to each.

    Atomic adds, so that no other thread's update is lost; the unsigned count wraps, so
    1 - virtual_loss is a subtraction when the virtual loss is larger.
    """
    cdef uint32_t change = <uint32_t>(1 - virtual_loss)
    while node != NODE_NONE:
        add_u32(&p.nodes[node].visits, change)
        add_f64(&p.nodes[node].value_sum, value)
        value = 1.0 - value     # the parent's mover is the other player
        node = p.nodes[node].parent


cdef inline void add_virtual_loss(NodePool* p, uint32_t node, uint32_t virtual_loss) noexcept nogil:
    """A thread walks through `node`: it counts as `virtual_loss` more visits with no result
    (lost, for the player who moved into it) until the backup, so other threads look elsewhere."""
    if virtual_loss:
        add_u32(&p.nodes[node].visits, virtual_loss)


cdef void remove_virtual_loss(NodePool* p, uint32_t node, uint32_t virtual_loss) noexcept nogil:
    """Take back the virtual losses of a walk that backs nothing up, from `node` up to the root."""
    if virtual_loss == 0:
        return
    while node != NODE_NONE:
        add_u32(&p.nodes[node].visits, <uint32_t>(0 - virtual_loss))
        node = p.nodes[node].parent


cdef bint update_proof(NodePool* p, uint32_t node) noexcept nogil:
    """Prove `node` from its children if they decide it; whether it is newly proven.

    The children's results are for the side to move at `node`: one winning child makes
    the node lost for the player who moved into it; all children lost make it won;
    all children proven with a draw the best of them make it a draw.

    Two threads may prove one node at once.  A proof is a fact of the position, so both
    find the same result; their distances may differ (each saw the children proven so
    far), and either one is a true mate distance.
    """
    cdef Node* n = &p.nodes[node]
    cdef const Node* child
    cdef uint32_t i
    cdef int shortest_win = 1000000, longest_loss = -1, proven
    cdef bint all_proven = True, any_draw = False
    if proven_of(n) != PROVEN_UNKNOWN or n.child_count == 0:
        return False
    for i in range(n.child_count):
        child = &p.nodes[n.first_child + i]
        proven = proven_of(child)
        if proven == PROVEN_WIN:
            if child.mate_plies < shortest_win:
                shortest_win = child.mate_plies
        elif proven == PROVEN_LOSS:
            if child.mate_plies > longest_loss:
                longest_loss = child.mate_plies
        elif proven == PROVEN_DRAW:
            any_draw = True
        else:
            all_proven = False
    if shortest_win < 1000000:
        set_proven(n, PROVEN_LOSS, shortest_win + 1)
        return True
    if not all_proven:
        return False
    if any_draw:
        set_proven(n, PROVEN_DRAW, 0)
    else:
        set_proven(n, PROVEN_WIN, longest_loss + 1)
    return True


cdef void propagate_proof(NodePool* p, uint32_t node, uint32_t root) noexcept nogil:
    """`node` was just proven: prove its ancestors as far as that decides them."""
    while node != root and node != NODE_NONE:
        node = p.nodes[node].parent
        if node == NODE_NONE or not update_proof(p, node):
            return


cdef inline int child_rank(const Node* c) noexcept nogil:
    """3 for a proven win, 1 for a proven loss, 2 for the rest (open or drawn)."""
    return <int>(1.0 + 2.0 * exact_value(c))


cdef inline bint better_child(const Node* a, const Node* b) noexcept nogil:
    """Whether `a` is the better move to play: a proven win (the quickest), else the most
    visited move not proven lost, else the loss that takes longest."""
    cdef int ra = child_rank(a), rb = child_rank(b)
    cdef uint32_t va, vb
    if ra != rb:
        return ra > rb
    if ra == 3:
        return a.mate_plies < b.mate_plies
    if ra == 1:
        return a.mate_plies > b.mate_plies
    va = load_u32(&a.visits)
    vb = load_u32(&b.visits)
    if va != vb:
        return va > vb
    if va == 0:
        return False
    return load_f64(&a.value_sum) / va > load_f64(&b.value_sum) / vb


cdef uint32_t best_child(const NodePool* p, uint32_t node) noexcept nogil:
    """The child to play (see better_child); NODE_NONE when `node` has no children."""
    cdef const Node* n = &p.nodes[node]
    cdef uint32_t i, best = NODE_NONE
    for i in range(n.child_count):
        if best == NODE_NONE or better_child(&p.nodes[n.first_child + i], &p.nodes[best]):
            best = n.first_child + i
    return best


# ---------------------------------------------------------------- values

cdef inline uint64_t next_random(uint64_t* state) noexcept nogil:
    """splitmix64: small, fast, and the same sequence for the same seed everywhere."""
    state[0] += 0x9E3779B97F4A7C15ULL
    cdef uint64_t z = state[0]
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline int leaf_search_depth(const MCTSState* s, int ply) noexcept nogil:
    """The alpha-beta plies that value a leaf `ply` tree moves below the root: `leaf_depth`,
    or more near the root when `leaf_depth_root` is set (that many plies one move below it,
    one less for each move further down).  The few nodes near the root decide the move, and
    a deeper search there finds the refutations their priors and values need, at a cost the
    small number of such nodes keeps low."""
    cdef int near_root = s.leaf_depth_root - (ply - 1)
    return near_root if near_root > s.leaf_depth else s.leaf_depth


cdef inline int node_search(SearchState* qs, int depth, int ply) noexcept nogil:
    """A full-window alpha-beta search of `depth` plies of the tree node at qs.board, `ply` moves
    below the root (a searched leaf's value, a refresh's best move in the table)."""
    # Check extensions stop 2 * completed_depth + 8 plies from the root: measured from the
    # node, as iterative deepening's depth-`depth` iteration would allow them.
    qs.completed_depth = depth + ply // 2
    return negamax(qs, depth, -VALUE_INFINITE, VALUE_INFINITE, ply, False)


cdef inline uint16_t quantized_prior(double prior) noexcept nogil:
    """A prior in 1/PRIOR_ONE, never 0: a move the prior rules out must stay reachable through FPU."""
    cdef uint32_t quantized = <uint32_t>(prior * PRIOR_ONE + 0.5)
    return <uint16_t>(1 if quantized < 1 else quantized)


cdef double searched_value(MCTSState* s, int ply) noexcept nogil:
    """The leaf's score as a win probability for the side to move: a full-window alpha-beta
    search of leaf_search_depth() plies and its quiescence search (depth 0: the quiescence search).

    The search runs on the tree's own board and stacks at the leaf's ply, so repetitions
    with the path count, the null move sees the move before it, and the table it shares
    with every other leaf of this search (and the next) orders its moves.
    """
    cdef SearchState* qs = s.qs
    cdef TTEntry entry
    cdef int depth = leaf_search_depth(s, ply)
    if depth <= 0:
        return score_value(s, quiescence(qs, -VALUE_INFINITE, VALUE_INFINITE, ply))
    # A transposition searched at least as deep (a full window stores exact scores; a PV node
    # would not cut on it by itself), read before this leaf's own search stores its entry over it.
    if tt_probe(qs.tt, qs.board.key, &entry) and (entry.bound_age & 3) == BOUND_EXACT and entry.depth >= depth:
        return score_value(s, score_from_tt(entry.score, ply))
    return score_value(s, node_search(qs, depth, ply))


cdef inline double score_value(MCTSState* s, int score) noexcept nogil:
    """A search's score at the board as a win probability for the side to move.  A mate
    found is a near-certain result (1 or 0), left to the solver to prove with its distance."""
    if score >= MATE_IN_MAX_PLY:
        return 1.0
    if score <= -MATE_IN_MAX_PLY:
        return 0.0
    return score_to_probability(score, s.value_model, board_material(&s.qs.board))


cdef double playout_value(MCTSState* s, int ply) noexcept nogil:
    """Uniformly random legal moves until the game ends or the ply cap, then the static
    evaluation; the result as a win probability for the side to move at the leaf."""
    cdef Board* b = &s.qs.board
    cdef MoveList moves
    cdef int k = 0, _undone, leaf_side = b.side_to_move
    cdef double result
    while True:
        if k > 0 and is_draw_by_rule(b, ply + k):
            result = 0.5
            break
        generate_legal(b, &moves)
        if moves.count == 0:
            result = 0.0 if b.checkers else 0.5
            break
        if k >= s.playout_cap:
            result = cp_to_probability(evaluate_position(&s.qs.evaluator, b))
            break
        do_move(b, moves.moves[<int>(next_random(&s.rng) % <uint64_t>moves.count)])
        k += 1
    if b.side_to_move != leaf_side:
        result = 1.0 - result
    for _undone in range(k):
        undo_move(b)
    return result


cdef bint prove_terminal(MCTSState* s, Node* n, int ply) noexcept nogil:
    """On a node's first visit: if the game is over there, record the exact result."""
    cdef Board* b = &s.qs.board
    if is_draw_by_rule(b, ply):
        set_proven(n, PROVEN_DRAW, n.mate_plies)
        return True
    if not has_legal_move(b):
        # The player who moved into the node has mated, or stalemated.
        set_proven(n, PROVEN_WIN if b.checkers else PROVEN_DRAW, 0)
        return True
    return False


# ---------------------------------------------------------------- expansion

cdef inline int expansion_order(const Board* b, Move m) noexcept nogil:
    """Captures (most valuable victim first) and queen promotions are tried first:
    the children of a new node are visited in this order, so tactics show early."""
    cdef int score = 0
    if move_kind(m) == MOVE_EN_PASSANT:
        score = 100000 + SEE_VALUE[PAWN] * 8
    elif b.squares[move_to(m)] != NO_PIECE:
        score = 100000 + SEE_VALUE[piece_type_of(b.squares[move_to(m)])] * 8 \
            - SEE_VALUE[piece_type_of(b.squares[move_from(m)])] // 100
    if is_promotion(m):
        score += 50000 + SEE_VALUE[move_kind(m)]
    return score


cdef int sort_by_prior(MCTSState* s, MoveList* moves, double* priors) noexcept nogil:
    """PUCT: compute the priors of moves.moves[:count] and sort the moves by them, best first
    (stable), so that the first child tried is the likeliest and a PV of unvisited moves reads well."""
    cdef int i, j, count = moves.count
    cdef Move m
    cdef double prior
    move_priors(s.qs, moves.moves, count, s.prior_temperature, s.prior_weights, priors)
    for i in range(1, count):
        m = moves.moves[i]
        prior = priors[i]
        j = i - 1
        while j >= 0 and priors[j] < prior:
            moves.moves[j + 1] = moves.moves[j]
            priors[j + 1] = priors[j]
            j -= 1
        moves.moves[j + 1] = m
        priors[j + 1] = prior
    return count


cdef uint32_t expand(MCTSState* s, uint32_t node, const Move* allowed, int allowed_count) noexcept nogil:
    """Give `node` a child for every legal move (only those in `allowed` if it is not NULL),
    with its prior under PUCT (under UCT all priors are equal and the order is the old one).

    Returns the first child, or NODE_NONE when the pool cannot hold them (the tree
    then stops growing) or there is no move.  The caller owns the node's expansion (it
    moved its stage to STAGE_EXPANDING, or no other thread runs); on success the children
    are published with the node's stage, STAGE_EXPANDED, and on failure the caller resets it.
    """
    cdef Board* b = &s.qs.board
    cdef NodePool* p = s.pool
    cdef MoveList moves
    cdef double priors[MAX_MOVES]
    cdef int i, j, count = 0, key
    cdef Move m
    cdef uint32_t first
    generate_legal(b, &moves)
    for i in range(moves.count):
        m = moves.moves[i]
        if allowed != NULL:
            for j in range(allowed_count):
                if allowed[j] == m:
                    break
            else:
                continue
        # Insertion sort by expansion order, stable so that equal moves keep generator order.
        key = expansion_order(b, m)
        j = count - 1
        while j >= 0 and moves.scores[j] < key:
            moves.moves[j + 1] = moves.moves[j]
            moves.scores[j + 1] = moves.scores[j]
            j -= 1
        moves.moves[j + 1] = m
        moves.scores[j + 1] = key
        count += 1
    if count == 0:
        return NODE_NONE
    moves.count = count
    if s.selection == SELECT_PUCT:
        sort_by_prior(s, &moves, priors)
    first = pool_alloc(p, count)
    if first == NODE_NONE:
        store_flag(&s.shared.pool_full, 1)
        return NODE_NONE
    for i in range(count):
        init_node(&p.nodes[first + i], node, moves.moves[i])
        if s.selection == SELECT_PUCT:
            p.nodes[first + i].prior = quantized_prior(priors[i])
        else:
            p.nodes[first + i].prior = <uint16_t>(PRIOR_ONE // count)
    p.nodes[node].first_child = first
    p.nodes[node].child_count = <uint8_t>count
    # Release: a thread that reads STAGE_EXPANDED (acquire) sees the children written above.
    store_u8_release(&p.nodes[node].stage, STAGE_EXPANDED)
    return first


cdef int refresh_depth(uint32_t visits, int extra, int max_depth) noexcept nogil:
    """The plies of the search that refreshes a node's priors at `visits` visits, 0 when none
    does: REFRESH_FIRST_DEPTH + `extra` at REFRESH_FIRST_VISITS, one more each time the visits
    grow 2**REFRESH_STEP_SHIFT-fold after it, up to `max_depth`."""
    cdef uint32_t at = REFRESH_FIRST_VISITS
    cdef int depth = REFRESH_FIRST_DEPTH + extra
    if visits < at or (visits & (visits - 1)) != 0:
        return 0        # the cheap test that nearly every node fails: not a power of two
    while at < visits and depth < max_depth:
        at <<= REFRESH_STEP_SHIFT
        depth += 1
    return depth if at == visits else 0


cdef inline uint64_t pack_root_search(Move move, int depth, int score) noexcept nogil:
    """A root search's best move (bits 0-15), depth (32-39) and score (40-55, offset to be
    positive) in one word; never 0, as depth is at least 1."""
    return (<uint64_t>move | (<uint64_t>(depth & 0xFF) << 32)
            | (<uint64_t>((score + ROOT_SCORE_OFFSET) & 0xFFFF) << 40))


cdef Move root_search_move_of(uint64_t word) noexcept nogil:
    return <Move>(word & 0xFFFF)


cdef int root_search_depth_of(uint64_t word) noexcept nogil:
    return <int>((word >> 32) & 0xFF)


cdef int root_search_score_of(uint64_t word) noexcept nogil:
    return <int>((word >> 40) & 0xFFFF) - ROOT_SCORE_OFFSET


cdef void refresh_priors(MCTSState* s, uint32_t node, int ply, int depth) noexcept nogil:
    """New priors for the children of `node` (the board stands at it, `ply` moves below the
    root): a full-window alpha-beta search of `depth` plies leaves its best move and history
    in the table and stacks, and move_priors() reads them as for a new node.

    A move the first priors ruled out, a quiet one the features cannot see, can be the best
    there is: once the node has the visits to pay for a search, the search finds it and its
    prior rises.  With several threads, a node whose visits pass the threshold while others
    walk it may be refreshed twice or not at all: a wasted search, never a wrong tree.
    """
    cdef NodePool* p = s.pool
    cdef SearchState* qs = s.qs
    cdef Move moves[MAX_MOVES]
    cdef double priors[MAX_MOVES]
    cdef uint32_t first = p.nodes[node].first_child
    cdef int i, score, count = p.nodes[node].child_count
    if count < 2:
        return
    score = node_search(qs, depth, ply)
    if qs.stopped:
        return
    if ply == 0:
        # Its principal variation's first move, depth and score (none if it ended without one).
        store_u64(&s.shared.root_search,
                  pack_root_search(qs.pv_table[0][0], depth, score) if qs.pv_length[0] > 0 else 0)
    for i in range(count):
        moves[i] = p.nodes[first + i].move
    move_priors(qs, moves, count, s.prior_temperature, s.prior_weights, priors)
    for i in range(count):
        p.nodes[first + i].prior = quantized_prior(priors[i])


# ---------------------------------------------------------------- one iteration

cdef inline void enter_child(MCTSState* s, int ply, Move m) noexcept nogil:
    """Make a tree move, leaving the alpha-beta stacks as a search along the path would:
    the move for the null-move rule and continuation history, no static evaluation."""
    record_move(s.qs, ply, m)
    s.qs.static_eval[ply] = VALUE_NONE
    do_move(&s.qs.board, m)


cdef inline void wait_for_other_thread(int* spins) noexcept nogil:
    """Another thread is checking or expanding the node ahead, which takes microseconds:
    spin a little, then give up the core (it may be that thread's, on a busy machine)."""
    spins[0] += 1
    if spins[0] < SPINS_BEFORE_YIELD:
        cpu_relax()
    else:
        yield_thread()


cdef int iterate(MCTSState* s) noexcept nogil:
    """Selection, expansion, simulation and backpropagation, once.

    Returns 0 after a playout; -1 when a stop came inside the leaf's search, and 1 when
    the walk met a node whose moves are all proven lost before another thread finished
    proving it (this thread proves it); nothing is backed up then.

    The walk adds a virtual loss to each node it enters (with several threads) and claims
    the stage of the node where it stops: the first visitor of a node checks it for the
    end of the game, the next one expands it, and a thread that finds either under way
    waits for it, then walks on (below the new children, if that is what it waited for).
    """
    cdef NodePool* p = s.pool
    cdef Board* b = &s.qs.board
    cdef uint32_t node = s.root, child, vl = s.virtual_loss
    cdef int ply = 0, _undone, stage, proven, spins = 0, refresh
    cdef uint64_t nodes_before = s.qs.nodes
    cdef double value
    cdef bint proven_now = False, backed_up = True
    cdef Node* n

    add_virtual_loss(p, node, vl)
    while True:
        n = &p.nodes[node]
        if node != s.root and proven_of(n) != PROVEN_UNKNOWN:
            break       # a proven node: its value is exact
        stage = load_u8_acquire(&n.stage)
        if stage == STAGE_EXPANDED:
            # Selection: down the expanded nodes.
            if s.selection == SELECT_PUCT:
                if s.refresh_priors:
                    if node == s.root:
                        refresh = refresh_depth(load_u32(&n.visits), s.root_refresh_extra,
                                                s.root_refresh_max_depth)
                    else:
                        refresh = refresh_depth(load_u32(&n.visits), 0, REFRESH_MAX_DEPTH)
                    if refresh > 0:
                        refresh_priors(s, node, ply, refresh)
                child = select_child_puct(p, node, s.c_puct, s.fpu_reduction)
            else:
                child = select_child(p, node, s.exploration)
            if child == NODE_NONE:
                # Every move is proven lost, so the node is proven: by another thread that
                # has not published it yet, or by one that lost a race with this proof.
                if update_proof(p, node):
                    propagate_proof(p, node, s.root)
                backed_up = False
                break
            add_virtual_loss(p, child, vl)
            enter_child(s, ply, p.nodes[child].move)
            ply += 1
            node = child
        elif stage == STAGE_NEW and node != s.root:
            if cas_u8(&n.stage, STAGE_NEW, STAGE_CHECKING):
                # The first visit: is the game over here?  Then a leaf, valued below.
                proven_now = prove_terminal(s, n, ply)
                store_u8_release(&n.stage, STAGE_LEAF)
                break
            # Another thread came first: look again.
        elif stage == STAGE_LEAF:
            # Expansion on the second visit: leaves seen once cost no memory for children.
            if ply >= MAX_TREE_DEPTH or load_flag(&s.shared.pool_full):
                break
            if load_u32(&n.visits) <= vl:
                # No result yet and no other walk on its way (only this one's virtual loss):
                # its first visit was cut off by a stop, so it is valued before it grows.
                break
            if cas_u8(&n.stage, STAGE_LEAF, STAGE_EXPANDING):
                child = expand(s, node, NULL, 0)
                if child == NODE_NONE:
                    store_u8_release(&n.stage, STAGE_LEAF)
                    break
                # Down to the first child (the best prior), whose first visit it is.
                add_virtual_loss(p, child, vl)
                enter_child(s, ply, p.nodes[child].move)
                ply += 1
                node = child
        elif stage == STAGE_CHECKING or stage == STAGE_EXPANDING:
            wait_for_other_thread(&spins)
        else:
            break       # the root before its expansion: never in a search

    n = &p.nodes[node]
    proven = proven_of(n)
    if not backed_up:
        value = 0.5
    elif proven != PROVEN_UNKNOWN:
        value = result_value(proven)
    elif s.leaf_mode == LEAF_PLAYOUT:
        value = 1.0 - playout_value(s, ply)
    else:
        value = 1.0 - searched_value(s, ply)

    for _undone in range(ply):
        undo_move(b)
    if not backed_up or s.qs.stopped:
        # A first visit cut off by a stop leaves the node a leaf with no visits, which the next
        # walk values before it expands it.  (Setting it back to STAGE_NEW would race with a
        # thread that values the same leaf while the pool is full: a new node with a visit.)
        remove_virtual_loss(p, node, vl)
        return 1 if not backed_up else -1
    backpropagate(p, node, value, vl)
    if proven_now:
        propagate_proof(p, node, s.root)
    s.playouts += 1
    s.nodes += 1 + (s.qs.nodes - nodes_before)
    s.depth_sum += ply
    if ply > s.seldepth:
        s.seldepth = ply
    add_u64(&s.shared.playouts, 1)
    add_u64(&s.shared.nodes, 1 + (s.qs.nodes - nodes_before))
    add_u64(&s.shared.depth_sum, <uint64_t>ply)
    max_int(&s.shared.seldepth, ply)
    return 0


# ---------------------------------------------------------------- the search loops

cdef double visit_share_factor(MCTSState* s) noexcept nogil:
    """The soft limit's scale from the most visited root move's share of the root's visits, by
    the time manager's node-share rule (as alpha-beta's node_time_management uses its nodes):
    a move that took most playouts is settled, less time; a contested one, more."""
    cdef const Node* root = &s.pool.nodes[s.root]
    cdef uint32_t i, v, first = 0
    cdef uint64_t total = 0
    for i in range(root.child_count):
        v = load_u32(&s.pool.nodes[root.first_child + i].visits)
        total += v
        if v > first:
            first = v
    if total < 1000:
        return 1.0      # too few playouts for the share to mean anything
    return node_share_factor(&s.time, <double>first / <double>total)


cdef bint mate_found(MCTSState* s) noexcept nogil:
    cdef uint32_t best = best_child(s.pool, s.root)
    if best == NODE_NONE or proven_of(&s.pool.nodes[best]) != PROVEN_WIN:
        return False
    return (s.pool.nodes[best].mate_plies + 2) // 2 <= s.mate_limit


cdef inline void start_thread_counts(MCTSState* s) noexcept nogil:
    s.playouts = 0
    s.nodes = 0
    s.stop_reason = STOP_NONE
    s.depth_sum = 0
    s.seldepth = 0
    s.last_report_ms = 0
    s.qs.stopped = False
    s.qs.nodes = 0


cdef void shared_reset(MCTSShared* shared, int helpers) noexcept nogil:
    """Clear the counters and flags of a search about to start with `helpers` helper threads."""
    shared.helper_signals.stop_requested = 0
    shared.helper_signals.pondering = 0
    shared.helper_signals.infinite = 0
    shared.playouts = 0
    shared.nodes = 0
    shared.depth_sum = 0
    shared.seldepth = 0
    shared.pool_full = 0
    shared.helpers_running = helpers
    shared.pause_requested = 0
    shared.helpers_paused = 0
    shared.recycles = 0
    shared.root_search = 0


cdef void helpers_not_started(MCTSShared* shared, int count) noexcept nogil:
    """`count` helpers counted by shared_reset will not run after all (their thread did not start)."""
    add_int(&shared.helpers_running, -count)


cdef void stop_helpers(MCTSShared* shared) noexcept nogil:
    """Tell the helpers to stop (a leaf search of theirs sees it too) and wait until they have
    left the tree, so that the last report and the move are taken from a quiet tree."""
    store_flag(&shared.helper_signals.stop_requested, 1)
    while load_int(&shared.helpers_running) > 0:
        sleep_ms(1)


cdef void finish_helpers(MCTSState* s) noexcept nogil:
    """The main thread is done: end the helpers' search.

    Once the playouts of `go nodes` are spent, each helper ends by itself after the playout
    it is in, so that no playout started is lost (a `stop` meanwhile still interrupts them);
    for any other reason (stop, clock, proof, ...) they are stopped at once.
    """
    cdef MCTSShared* shared = s.shared
    if not (s.stop_reason == STOP_LIMIT and s.playout_limit and load_u64(&shared.playouts) >= s.playout_limit):
        stop_helpers(shared)
        return
    while load_int(&shared.helpers_running) > 0:
        if load_flag(&s.signals.stop_requested):
            stop_helpers(shared)
            return
        sleep_ms(1)


cdef bint recycle_tree(MCTSState* s) noexcept nogil:
    """The pool is full: pause the helpers at the top of their loop (each finishes the playout
    it is in, so no walk and no virtual loss is left), drop the least visited subtrees until at
    most RECYCLE_KEEP_PERCENT of the pool is used, and let everyone grow the tree again.

    Returns False when even keeping only the root's children would not get under that share
    (a pool too small for the root's moves and a few more): the tree then stops growing.
    """
    cdef MCTSShared* shared = s.shared
    cdef uint32_t target = <uint32_t>(<uint64_t>s.pool.capacity * RECYCLE_KEEP_PERCENT // 100)
    cdef bint made_room
    store_flag(&shared.pause_requested, 1)
    while load_int(&shared.helpers_paused) < load_int(&shared.helpers_running):
        yield_thread()
    pool_recycle(s.pool, s.root, target)
    made_room = pool_used(s.pool) <= target
    if made_room:
        add_int(&shared.recycles, 1)
        store_flag(&shared.pool_full, 0)
    store_flag(&shared.pause_requested, 0)
    # Wait until every helper has left the pause, so that the next pause finds none still in it.
    while load_int(&shared.helpers_paused) > 0:
        yield_thread()
    return made_room


cdef uint32_t root_child_with(MCTSState* s, Move m) noexcept nogil:
    """The root's child reached by `m`, or NODE_NONE."""
    cdef const Node* root = &s.pool.nodes[s.root]
    cdef uint32_t i
    for i in range(root.child_count):
        if s.pool.nodes[root.first_child + i].move == m:
            return root.first_child + i
    return NODE_NONE


cdef void verify_tree_move(MCTSState* s) noexcept nogil:
    """`verified_move`, once the helpers are done: when the root's latest
    refreshing search (the deepest alpha-beta search of the root so far) found another move best
    than the tree's favourite, search the favourite as deep in a null window VERIFY_MARGIN below
    that search's score.  Failing low there, the favourite is refuted by more than the margin,
    deeper than the tree has looked (the tree plays the moves whose refutations lie beyond its
    leaves' searches), and the searched move is played instead (s.verified_child).

    A proof, a mate score, a check the clock's hard limit cuts off: the favourite stands.
    """
    cdef SearchState* qs = s.qs
    cdef uint64_t word = load_u64(&s.shared.root_search)
    cdef uint64_t nodes_before = qs.nodes
    cdef Move searched = root_search_move_of(word)
    cdef int depth = root_search_depth_of(word), bar = root_search_score_of(word) - VERIFY_MARGIN, score
    cdef uint32_t favourite = best_child(s.pool, s.root), alternative
    if word == 0 or favourite == NODE_NONE or s.pool.nodes[favourite].move == searched:
        return
    if proven_of(&s.pool.nodes[favourite]) != PROVEN_UNKNOWN or depth < 2:
        return
    if bar >= MATE_IN_MAX_PLY - VERIFY_MARGIN or bar <= -MATE_IN_MAX_PLY:
        return      # a mate: the solver's and the search's business, not a margin's
    alternative = root_child_with(s, searched)
    if alternative == NODE_NONE or proven_of(&s.pool.nodes[alternative]) == PROVEN_LOSS:
        return
    enter_child(s, 0, s.pool.nodes[favourite].move)
    qs.completed_depth = depth      # check extensions as the root search had them
    score = -negamax(qs, depth - 1, -bar, -bar + 1, 1, False)
    undo_move(&qs.board)
    s.nodes += qs.nodes - nodes_before
    add_u64(&s.shared.nodes, qs.nodes - nodes_before)
    if qs.stopped:
        s.verification = VERIFY_CUT_OFF
    elif score < bar:
        s.verification = VERIFY_OVERRULED
        s.verified_child = alternative
    else:
        s.verification = VERIFY_KEPT


cdef inline void pause_here(MCTSState* s) noexcept nogil:
    """A helper: wait while the main thread recycles the pool (or until told to stop)."""
    cdef MCTSShared* shared = s.shared
    add_int(&shared.helpers_paused, 1)
    while load_flag(&shared.pause_requested) and not load_flag(&s.signals.stop_requested):
        sleep_ms(1)
    add_int(&shared.helpers_paused, -1)


cdef void mcts_search(MCTSState* s) noexcept nogil:
    """The main thread: iterate until stopped, out of time or limits, or the root is proven;
    then stop the helpers and report.

    The root must already be expanded, and shared_reset called.  Limits count the playouts
    of every thread.  The caller waits for stop or ponderhit in `go infinite` and while
    pondering (wait_until_released).
    """
    cdef MCTSShared* shared = s.shared
    cdef int64_t elapsed
    cdef uint64_t playouts
    cdef int result
    cdef bint recycle_failed = False
    start_thread_counts(s)
    s.verification = VERIFY_NONE
    s.verified_child = NODE_NONE
    while True:
        if load_flag(&s.signals.stop_requested):
            s.stop_reason = STOP_SIGNAL
            break
        if proven_of(&s.pool.nodes[s.root]) != PROVEN_UNKNOWN:
            s.stop_reason = STOP_PROVEN
            break
        s.stop_reason = STOP_LIMIT
        playouts = load_u64(&shared.playouts)
        if s.playout_limit and playouts >= s.playout_limit:
            break
        if s.depth_limit and playouts > 0 and (load_u64(&shared.depth_sum) >= <uint64_t>s.depth_limit * playouts
                                               or load_flag(&shared.pool_full)):
            break       # a full pool cannot deepen the tree any more
        # The periodic checks go by this thread's own playouts, which pass every multiple.
        if s.mate_limit and (s.playouts & 63) == 0 and mate_found(s):
            break
        if s.recycle and load_flag(&shared.pool_full) and not recycle_failed:
            recycle_failed = not recycle_tree(s)
        if load_flag(&shared.pool_full) and (load_flag(&s.signals.infinite) or load_flag(&s.signals.pondering)):
            # With no clock to use up, more playouts into a tree that cannot grow would only
            # keep a core busy: report and wait for stop or ponderhit (which then answers at once).
            break
        elapsed = elapsed_ms(s.signals)
        if s.visit_share_time and (s.playouts & 255) == 0 and may_stop_early(&s.time, s.signals):
            s.time_factor = visit_share_factor(s)
        if soft_budget_spent(&s.time, s.signals, s.time_factor):
            s.stop_reason = STOP_TIME
            break
        s.stop_reason = STOP_NONE
        if elapsed - s.last_report_ms >= REPORT_INTERVAL_MS:
            s.last_report_ms = elapsed
            report_progress(s.reporter, REPORT_ITERATION, 0)
        result = iterate(s)
        if result < 0:
            # A leaf's or a refresh's search stopped: by `stop`, or by the clock's hard limit.
            s.stop_reason = STOP_SIGNAL if load_flag(&s.signals.stop_requested) else STOP_TIME
            break
    finish_helpers(s)
    if s.verified_move and s.stop_reason == STOP_TIME and not s.qs.stopped and may_stop_early(&s.time, s.signals):
        verify_tree_move(s)
    report_progress(s.reporter, REPORT_FINAL, 0)


cdef void mcts_helper(MCTSState* s) noexcept nogil:
    """A helper thread: iterate on the same tree until the main thread stops it (its
    `signals` are shared.helper_signals), the root is proven or the playouts are spent.

    It reports nothing and decides nothing: the clock and the move are
    the main thread's.  It leaves after at most one more playout (or a stopped leaf search).
    """
    cdef MCTSShared* shared = s.shared
    start_thread_counts(s)
    while True:
        if load_flag(&s.signals.stop_requested):
            s.stop_reason = STOP_SIGNAL
            break
        if proven_of(&s.pool.nodes[s.root]) != PROVEN_UNKNOWN:
            s.stop_reason = STOP_PROVEN
            break
        if s.playout_limit and load_u64(&shared.playouts) >= s.playout_limit:
            s.stop_reason = STOP_LIMIT
            break
        if load_flag(&shared.pause_requested):
            pause_here(s)
            continue
        if iterate(s) < 0:
            s.stop_reason = STOP_SIGNAL
            break
    add_int(&shared.helpers_running, -1)
