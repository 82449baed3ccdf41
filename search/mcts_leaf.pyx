"""MCTS leaves (see mcts_leaf.pxd): a new leaf's value from a short alpha-beta search or a random
playout, and the exact results of checkmate, stalemate and draws by rule."""

from libc.stdint cimport uint64_t
from search.board.types cimport MoveList, MATE_IN_MAX_PLY, VALUE_INFINITE
from search.board.board cimport Board, do_move, undo_move
from search.board.movegen cimport generate_legal, has_legal_move
from search.board.rules cimport is_draw_by_rule
from search.alphabeta cimport quiescence
from search.tt cimport TTEntry, tt_probe, score_from_tt, BOUND_EXACT
from search.mcts_pool cimport PROVEN_WIN, PROVEN_DRAW, set_proven
from search.mcts_value cimport board_material, score_to_probability, cp_to_probability
from eval.evaluator cimport evaluate_position


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
