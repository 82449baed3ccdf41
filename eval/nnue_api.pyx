"""The Python face of the learned evaluation: a position's score by a network.

It computes the accumulators afresh (the searchers bring theirs up to date move by move, in
eval/nnue.pyx); the number is the one a search sees at that position.
"""

from cpython.mem cimport PyMem_Malloc, PyMem_Free
from libc.stdint cimport int16_t
from search.board.position cimport Position
from eval.nnue cimport Network, refresh_accumulators, network_output


def nnue_evaluate(Network network not None, Position position not None) -> int:
    """The network's centipawns from the side to move's view."""
    cdef int16_t* acc = <int16_t*>PyMem_Malloc(2 * network.weights.hidden * sizeof(int16_t))
    cdef int value
    if acc == NULL:
        raise MemoryError()
    refresh_accumulators(&network.weights, position.board, acc)
    value = network_output(&network.weights, acc, position.board)
    PyMem_Free(acc)
    return value
