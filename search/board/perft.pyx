"""Perft and divide over the C board."""

from libc.stdint cimport uint64_t
from search.board.types cimport MoveList
from search.board.board cimport Board, do_move, undo_move
from search.board.movegen cimport generate_legal


cdef uint64_t perft(Board* b, int depth) noexcept nogil:
    cdef MoveList moves
    cdef uint64_t nodes = 0
    cdef int i
    if depth <= 0:
        return 1
    generate_legal(b, &moves)
    if depth == 1:
        return moves.count
    for i in range(moves.count):
        do_move(b, moves.moves[i])
        nodes += perft(b, depth - 1)
        undo_move(b)
    return nodes
