"""Reference searchers: plain minimax and plain alpha-beta, no table, no pruning.

They use the same board, evaluation and terminal rules as the main searcher, so
tests can prove that alpha-beta (and the main searcher with its pruning switched
off) returns exactly the minimax value, and count the nodes pruning saves.
"""

from libc.stdint cimport uint64_t
from search.board.types cimport MoveList, MATE, VALUE_INFINITE, VALUE_DRAW
from search.board.board cimport Board, do_move, undo_move
from search.board.movegen cimport generate_legal
from search.board.rules cimport is_draw_by_rule
from search.board.position cimport Position
from eval.evaluate cimport evaluate

from typing import Tuple


cdef int minimax(Board* b, int depth, int ply, uint64_t* nodes) noexcept nogil:
    cdef MoveList moves
    cdef int i, score, best = -VALUE_INFINITE
    nodes[0] += 1
    if ply > 0 and is_draw_by_rule(b, ply):
        return VALUE_DRAW
    generate_legal(b, &moves)
    if moves.count == 0:
        return -MATE + ply if b.checkers else VALUE_DRAW
    if depth <= 0:
        return evaluate(b)
    for i in range(moves.count):
        do_move(b, moves.moves[i])
        score = -minimax(b, depth - 1, ply + 1, nodes)
        undo_move(b)
        if score > best:
            best = score
    return best


cdef int alphabeta(Board* b, int depth, int alpha, int beta, int ply, uint64_t* nodes) noexcept nogil:
    cdef MoveList moves
    cdef int i, score, best = -VALUE_INFINITE
    nodes[0] += 1
    if ply > 0 and is_draw_by_rule(b, ply):
        return VALUE_DRAW
    generate_legal(b, &moves)
    if moves.count == 0:
        return -MATE + ply if b.checkers else VALUE_DRAW
    if depth <= 0:
        return evaluate(b)
    for i in range(moves.count):
        do_move(b, moves.moves[i])
        score = -alphabeta(b, depth - 1, -beta, -alpha, ply + 1, nodes)
        undo_move(b)
        if score > best:
            best = score
            if score > alpha:
                alpha = score
                if alpha >= beta:
                    break
    return best


def minimax_value(Position position not None, int depth) -> Tuple[int, int]:
    """(value for the side to move, nodes visited) of a full-width minimax to `depth`."""
    cdef uint64_t nodes = 0
    cdef int value
    cdef Position copy = position.copy()
    with nogil:
        value = minimax(copy.board, depth, 0, &nodes)
    return value, nodes


def alphabeta_value(Position position not None, int depth) -> Tuple[int, int]:
    """(value, nodes) of a plain fail-soft alpha-beta to `depth` with a full window."""
    cdef uint64_t nodes = 0
    cdef int value
    cdef Position copy = position.copy()
    with nogil:
        value = alphabeta(copy.board, depth, -VALUE_INFINITE, VALUE_INFINITE, 0, &nodes)
    return value, nodes
