# The main searcher: iterative deepening over a principal-variation alpha-beta
# search with aspiration windows, quiescence search, a transposition table,
# null-move pruning, late-move reductions, futility pruning and check extensions.

from search.state cimport SearchState

# Run the whole search (no GIL needed; it takes the GIL only to report progress).
cdef void iterative_deepening(SearchState* s) noexcept nogil
cdef int negamax(SearchState* s, int depth, int alpha, int beta, int ply, bint cut_node) noexcept nogil
cdef int quiescence(SearchState* s, int alpha, int beta, int ply) noexcept nogil
