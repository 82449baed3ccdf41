# MCTS leaves: the value a new leaf backs up (a short alpha-beta search's score as a win
# probability, or a random playout), and the exact result of a node where the game is over.

from search.board.types cimport VALUE_INFINITE
from search.state cimport SearchState
from search.alphabeta cimport negamax
from search.mcts_pool cimport Node
from search.mcts_state cimport MCTSState

# The leaf's score as a win probability for the side to move: an alpha-beta search of the
# leaf's depth (leaf_depth, deeper near the root by leaf_depth_root) and its quiescence search.
# The board stands at the leaf, `ply` tree moves below the root.
cdef double searched_value(MCTSState* s, int ply) noexcept nogil
# Random legal moves until the game ends or the ply cap, then the static evaluation; the
# result as a win probability for the side to move at the leaf.
cdef double playout_value(MCTSState* s, int ply) noexcept nogil
# On a node's first visit (the board stands at it): if the game is over there, record the
# exact result and return True.
cdef bint prove_terminal(MCTSState* s, Node* n, int ply) noexcept nogil


cdef inline int node_search(SearchState* qs, int depth, int ply) noexcept nogil:
    """A full-window alpha-beta search of `depth` plies of the tree node at qs.board, `ply` moves
    below the root (a searched leaf's value, a refresh's best move in the table)."""
    # Check extensions stop 2 * completed_depth + 8 plies from the root: measured from the
    # node, as iterative deepening's depth-`depth` iteration would allow them.
    qs.completed_depth = depth + ply // 2
    return negamax(qs, depth, -VALUE_INFINITE, VALUE_INFINITE, ply, False)
