"""Monte Carlo tree search over the C board, without the GIL: the iteration and the loops.

One iteration walks from the root to a leaf by PUCT (or UCB1), expands the leaf when
it is reached for the second time (children for all legal moves, in one block of the
pool, each with its prior), gives the new leaf a value (a short alpha-beta search's
score as a win probability, or a random playout), and adds that value along the path,
flipped at every ply.  Checkmate, stalemate and draws by rule are exact; such results
move up the tree (MCTS-Solver), and a proven node is never expanded or simulated again.
The steps live in mcts_select, mcts_expand, mcts_leaf and mcts_backup; this module walks
the tree, runs the iterations until a limit, and ends the search.

With several threads every one of them runs these iterations on the same pool, each on
its own board: see "Threads" in docs/mcts.md for the virtual loss, the atomics and the
protocol that lets exactly one thread check or expand a node.
"""

from libc.stdint cimport uint32_t, uint64_t, int64_t
from search.board.types cimport Move, MATE_IN_MAX_PLY, VALUE_NONE
from search.board.board cimport Board, do_move, undo_move
from search.alphabeta cimport negamax
from search.ordering cimport record_move
from search.state cimport SearchState
from search.control cimport REPORT_ITERATION, REPORT_FINAL, report_progress
from search.timeman cimport (
    elapsed_ms, soft_budget_spent, may_stop_early, node_share_factor,
)
from search.mcts_pool cimport (
    Node, NodePool, NODE_NONE, PROVEN_UNKNOWN, PROVEN_WIN, PROVEN_LOSS,
    STAGE_NEW, STAGE_CHECKING, STAGE_LEAF, STAGE_EXPANDING, STAGE_EXPANDED,
    proven_of, result_value, pool_used, pool_recycle,
    load_u8_acquire, store_u8_release, cas_u8, load_u32, load_u64, add_u64, load_int, add_int, max_int,
    cpu_relax, yield_thread,
)
from search.mcts_state cimport (
    STOP_NONE, STOP_SIGNAL, STOP_PROVEN, STOP_LIMIT, STOP_TIME,
    VERIFY_NONE, VERIFY_KEPT, VERIFY_OVERRULED, VERIFY_CUT_OFF, VERIFY_DECISIVE, VERIFY_MARGIN, DECISIVE_SCORE,
    MAX_TREE_DEPTH, LEAF_PLAYOUT, SELECT_PUCT, REFRESH_MAX_DEPTH,
)
from search.mcts_select cimport select_child, select_child_puct, best_child
from search.mcts_backup cimport (
    backpropagate, add_virtual_loss, remove_virtual_loss, update_proof, propagate_proof,
)
from search.mcts_leaf cimport searched_value, playout_value, prove_terminal
from search.mcts_expand cimport (
    expand, refresh_depth, refresh_priors, root_search_move_of, root_search_depth_of, root_search_score_of,
)

cdef extern from "clock.h" nogil:
    int load_flag "kestrel_load_flag"(int* flag)
    void store_flag "kestrel_store_flag"(int* flag, int value)
    void sleep_ms "kestrel_sleep_ms"(int ms)

cdef enum:
    REPORT_INTERVAL_MS = 1000
    SPINS_BEFORE_YIELD = 64        # waiting for another thread's expansion: spin a little, then yield
    RECYCLE_KEEP_PERCENT = 50      # a full pool is recycled down to at most this share of its nodes


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
    cdef int64_t elapsed
    store_flag(&shared.pause_requested, 1)
    while load_int(&shared.helpers_paused) < load_int(&shared.helpers_running):
        # A helper may be refreshing the root's priors, an untimed search of 16 plies or more
        # once the root has 2**16 visits, which takes seconds: it is let finish (cutting it off
        # lost games, mc-threads2-pause-cutoff), and meanwhile the reports go on, so that `go
        # infinite` is never silent.  A `stop` halts the helpers; the clock's watch, at the hard limit.
        elapsed = elapsed_ms(s.signals)
        if elapsed - s.last_report_ms >= REPORT_INTERVAL_MS:
            s.last_report_ms = elapsed
            report_progress(s.reporter, REPORT_ITERATION, 0)
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


cdef uint32_t disputing_child(MCTSState* s, uint64_t word, uint32_t favourite) noexcept nogil:
    """The root child of the move that the root search `word` found best, where that move
    disputes the tree's `favourite`; NODE_NONE where there is no such search of 2 plies or more,
    no favourite, the two agree, or the searched move is proven lost (the tree knows better)."""
    cdef Move searched = root_search_move_of(word)
    cdef uint32_t alternative
    if word == 0 or root_search_depth_of(word) < 2 or favourite == NODE_NONE:
        return NODE_NONE
    if s.pool.nodes[favourite].move == searched:
        return NODE_NONE
    alternative = root_child_with(s, searched)
    if alternative == NODE_NONE or proven_of(&s.pool.nodes[alternative]) == PROVEN_LOSS:
        return NODE_NONE
    return alternative


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
    cdef int depth = root_search_depth_of(word), bar = root_search_score_of(word) - VERIFY_MARGIN, score
    cdef uint32_t favourite = best_child(s.pool, s.root)
    cdef uint32_t alternative = disputing_child(s, word, favourite)
    if alternative == NODE_NONE or proven_of(&s.pool.nodes[favourite]) != PROVEN_UNKNOWN:
        return
    if bar >= MATE_IN_MAX_PLY - VERIFY_MARGIN or bar <= -MATE_IN_MAX_PLY:
        return      # a mate: the solver's and the search's business, not a margin's
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


cdef bint play_decisive_search_move(MCTSState* s) noexcept nogil:
    """`decisive_root_move`: when the root's latest refreshing search scores the position
    DECISIVE_SCORE or more for the side to move (a mate included) and its move is not the tree's
    favourite, that move is played (s.verified_child).  In a won position every sensible move's
    win probability is near 1, so the visits cannot prefer the move that makes progress, and the
    tree marks time until the 50-move rule; the search's score still has the gradient.

    A favourite proven won, a searched move proven lost, a search of under 2 plies: no change.
    """
    cdef uint64_t word = load_u64(&s.shared.root_search)
    cdef uint32_t favourite = best_child(s.pool, s.root)
    cdef uint32_t alternative = disputing_child(s, word, favourite)
    if alternative == NODE_NONE or root_search_score_of(word) < DECISIVE_SCORE:
        return False
    if proven_of(&s.pool.nodes[favourite]) == PROVEN_WIN:
        return False
    s.verification = VERIFY_DECISIVE
    s.verified_child = alternative
    return True


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
    cdef bint recycle_failed = False, decided
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
        if (load_flag(&shared.pool_full) and (not s.recycle or recycle_failed)
                and (load_flag(&s.signals.infinite) or load_flag(&s.signals.pondering))):
            # With no clock to use up, more playouts into a tree that cannot grow would only
            # keep a core busy: report and wait for stop or ponderhit (which then answers at once).
            # A pool that recycles can grow again, even when the helpers have filled it anew
            # between the recycle and this line (the next pass recycles it again).
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
    # A won position's move is the root search's; else the favourite may still be checked against it.
    decided = s.decisive_root_move and play_decisive_search_move(s)
    if (not decided and s.verified_move and s.stop_reason == STOP_TIME and not s.qs.stopped
            and may_stop_early(&s.time, s.signals)):
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
