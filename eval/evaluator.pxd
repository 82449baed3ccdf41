# The one evaluation interface of the searchers: the weighted evaluation, or an NNUE network
# with the calling thread's own accumulators.
#
# Every search thread owns an Evaluator (in its SearchState); they all point at the same
# read-only network, which the Searcher that set it keeps alive.

from search.board.board cimport Board
from eval.evaluate cimport evaluate
from eval.nnue cimport NetworkWeights, AccumulatorStack, nnue_evaluate


cdef struct Evaluator:
    const NetworkWeights* network     # NULL: the weighted evaluation
    AccumulatorStack accumulators     # this thread's, used only with a network


# Centipawns from the side to move's view: what every searcher calls at its leaves.
cdef inline int evaluate_position(Evaluator* ev, const Board* b) noexcept nogil:
    if ev.network == NULL:
        return evaluate(b)
    return nnue_evaluate(&ev.accumulators, ev.network, b)


# Evaluate with `network` (an eval.nnue.Network, or None for the weighted evaluation) from now
# on; MemoryError when the accumulators cannot be allocated.  The caller keeps the network alive.
cdef int evaluator_use(Evaluator* ev, object network) except -1
# Release the accumulators (the evaluator is then the weighted one).
cdef void evaluator_free(Evaluator* ev) noexcept nogil
