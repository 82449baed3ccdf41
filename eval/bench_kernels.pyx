"""The compiled loops of eval/bench.py: evaluations as the search makes them, without the GIL.

A search evaluates the position after a move, through its thread's Evaluator (eval/evaluator.pxd):
the weighted evaluation, or the net with accumulators brought up to date from the parent's.  These
loops do the same over each position's legal moves, and time nothing themselves.
"""

from cpython.mem cimport PyMem_Malloc, PyMem_Free
from libc.stdint cimport int16_t
from libc.string cimport memset
from search.board.types cimport MoveList
from search.board.board cimport Board, do_move, undo_move
from search.board.movegen cimport generate_legal
from search.board.position cimport Position
from eval.evaluator cimport Evaluator, evaluate_position, evaluator_use, evaluator_free
from eval.nnue cimport Network, refresh_accumulators, network_output

from typing import Optional, Sequence, Tuple


def bench_after_moves(positions: Sequence[Position], long rounds,
                      network: Optional[Network] = None) -> Tuple[int, int, int]:
    """Evaluate every position and then the position after each of its legal moves, `rounds`
    times, with `network` (None: the weighted evaluation) as a search thread does: the net's
    accumulators of a child come from its parent's.  Returns (evaluations, the net's refreshes
    from scratch among them, the sum of the scores, which keeps the compiler from skipping work)."""
    cdef Evaluator ev
    cdef int n = len(positions), i, j
    cdef long _round
    cdef long long total = 0, count = 0, refreshes
    cdef MoveList moves
    cdef Board* boards = <Board*>PyMem_Malloc(max(n, 1) * sizeof(Board))
    if boards == NULL:
        raise MemoryError()
    memset(&ev, 0, sizeof(Evaluator))
    try:
        for i in range(n):
            boards[i] = (<Position?>positions[i]).board[0]
        evaluator_use(&ev, network)
        with nogil:
            for _round in range(rounds):
                for i in range(n):
                    total += evaluate_position(&ev, &boards[i])
                    generate_legal(&boards[i], &moves)
                    for j in range(moves.count):
                        do_move(&boards[i], moves.moves[j])
                        total += evaluate_position(&ev, &boards[i])
                        undo_move(&boards[i])
                    count += 1 + moves.count
        refreshes = ev.accumulators.refreshes
    finally:
        evaluator_free(&ev)
        PyMem_Free(boards)
    return count, refreshes, total


def bench_net_from_scratch(positions: Sequence[Position], long rounds, Network network not None) -> int:
    """The net's evaluation of every position `rounds` times with its accumulators computed afresh
    each time (as where no position before it on the path has them); the sum of the scores."""
    cdef int n = len(positions), i
    cdef long _round
    cdef long long total = 0
    cdef const Board** boards = <const Board**>PyMem_Malloc(max(n, 1) * sizeof(Board*))
    cdef int16_t* acc = <int16_t*>PyMem_Malloc(2 * network.weights.hidden * sizeof(int16_t))
    try:
        if boards == NULL or acc == NULL:
            raise MemoryError()
        for i in range(n):
            boards[i] = (<Position?>positions[i]).board
        with nogil:
            for _round in range(rounds):
                for i in range(n):
                    refresh_accumulators(&network.weights, boards[i], acc)
                    total += network_output(&network.weights, acc, boards[i])
    finally:
        PyMem_Free(acc)
        PyMem_Free(boards)
    return total
