"""Perft and divide over the C board."""

from libc.stdint cimport uint64_t
from search.board.types cimport MoveList
from search.board.board cimport Board, do_move, undo_move
from search.board.movegen cimport generate_legal

cdef extern from "clock.h" nogil:
    int load_flag "kestrel_load_flag"(int* flag)


cdef uint64_t perft(Board* b, int depth) noexcept nogil:
    cdef int never = 0
    return perft_until(b, depth, &never)


cdef uint64_t perft_until(Board* b, int depth, int* stop) noexcept nogil:
    cdef MoveList moves
    cdef uint64_t nodes = 0
    cdef int i
    if depth <= 0:
        return 1
    generate_legal(b, &moves)
    if depth == 1:
        return moves.count
    for i in range(moves.count):
        # Looked at above the last plies only: the check costs nothing beside the leaves.
        if depth >= 3 and load_flag(stop):
            break
        do_move(b, moves.moves[i])
        nodes += perft_until(b, depth - 1, stop)
        undo_move(b)
    return nodes
