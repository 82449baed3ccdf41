"""Setting up a search thread's Evaluator (evaluator.pxd): which evaluation, and its accumulators."""

from eval.nnue cimport Network, stack_prepare, stack_free


cdef int evaluator_use(Evaluator* ev, object network) except -1:
    cdef Network net
    if network is None:
        ev.network = NULL
        return 0
    net = <Network?>network
    if stack_prepare(&ev.accumulators, &net.weights) != 0:
        ev.network = NULL
        raise MemoryError("cannot allocate a search thread's NNUE accumulators")
    ev.network = &net.weights
    return 0


cdef void evaluator_free(Evaluator* ev) noexcept nogil:
    ev.network = NULL
    stack_free(&ev.accumulators)
