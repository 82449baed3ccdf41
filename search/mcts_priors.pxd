# The prior of each move at a new MCTS node: what Kestrel's move ordering knows, as probabilities.
#
# Each move gets a logit from the knowledge alpha-beta orders moves by: the transposition
# table's move (the best move of the searched leaf that valued this node), the static exchange
# of captures, promotions, checks and the history of quiet moves.  A softmax with a temperature
# turns the logits into probabilities; a high temperature flattens them towards uniform.

from search.board.types cimport Move
from search.state cimport SearchState

# The logit of move `m` at s.board (`tt_move`: the table's move there, or MOVE_NONE); the
# weights are the PRIOR_* constants of mcts_priors.pyx.
cdef double move_logit(SearchState* s, Move m, Move tt_move) noexcept nogil

# priors[i] for moves[i] at s.board, summing to 1; `temperature` > 0.
cdef void move_priors(SearchState* s, const Move* moves, int count, double temperature,
                      double* priors) noexcept nogil
