"""Reference searchers: plain minimax and plain alpha-beta, no table, no pruning.

They use the same board, evaluation and terminal rules as the main searcher, so
tests can prove that alpha-beta (and the main searcher with its pruning switched
off) returns exactly the minimax value, and count the nodes pruning saves.
"""

from libc.stdint cimport uint64_t
from libc.string cimport memset
from search.board.types cimport MoveList, MATE, VALUE_INFINITE, VALUE_DRAW
from search.board.board cimport Board, do_move, undo_move
from search.board.movegen cimport generate_legal
from search.board.rules cimport is_draw_by_rule
from search.board.position cimport Position
from eval.evaluator cimport Evaluator, evaluate_position, evaluator_use, evaluator_free

from typing import Any, Tuple


cdef int minimax(Board* b, Evaluator* ev, int depth, int ply, uint64_t* nodes) noexcept nogil:
    cdef MoveList moves
    cdef int i, score, best = -VALUE_INFINITE
    nodes[0] += 1
    if ply > 0 and is_draw_by_rule(b, ply):
        return VALUE_DRAW
    generate_legal(b, &moves)
    if moves.count == 0:
        return -MATE + ply if b.checkers else VALUE_DRAW
    if depth <= 0:
        return evaluate_position(ev, b)
    for i in range(moves.count):
        do_move(b, moves.moves[i])
        score = -minimax(b, ev, depth - 1, ply + 1, nodes)
        undo_move(b)
        if score > best:
            best = score
    return best


cdef int alphabeta(Board* b, Evaluator* ev, int depth, int alpha, int beta, int ply, uint64_t* nodes) noexcept nogil:
    cdef MoveList moves
    cdef int i, score, best = -VALUE_INFINITE
    nodes[0] += 1
    if ply > 0 and is_draw_by_rule(b, ply):
        return VALUE_DRAW
    generate_legal(b, &moves)
    if moves.count == 0:
        return -MATE + ply if b.checkers else VALUE_DRAW
    if depth <= 0:
        return evaluate_position(ev, b)
    for i in range(moves.count):
        do_move(b, moves.moves[i])
        score = -alphabeta(b, ev, depth - 1, -beta, -alpha, ply + 1, nodes)
        undo_move(b)
        if score > best:
            best = score
            if score > alpha:
                alpha = score
                if alpha >= beta:
                    break
    return best


def minimax_value(Position position not None, int depth, network: Any = None) -> Tuple[int, int]:
    """(value for the side to move, nodes visited) of a full-width minimax to `depth`, with the
    weighted evaluation or an eval.nnue.Network."""
    cdef uint64_t nodes = 0
    cdef int value
    cdef Position copy = position.copy()
    cdef Evaluator ev
    memset(&ev, 0, sizeof(Evaluator))
    try:
        evaluator_use(&ev, network)
        with nogil:
            value = minimax(copy.board, &ev, depth, 0, &nodes)
    finally:
        evaluator_free(&ev)
    return value, nodes


def alphabeta_value(Position position not None, int depth, network: Any = None) -> Tuple[int, int]:
    """(value, nodes) of a plain fail-soft alpha-beta to `depth` with a full window."""
    cdef uint64_t nodes = 0
    cdef int value
    cdef Position copy = position.copy()
    cdef Evaluator ev
    memset(&ev, 0, sizeof(Evaluator))
    try:
        evaluator_use(&ev, network)
        with nogil:
            value = alphabeta(copy.board, &ev, depth, -VALUE_INFINITE, VALUE_INFINITE, 0, &nodes)
    finally:
        evaluator_free(&ev)
    return value, nodes
