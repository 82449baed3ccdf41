"""The net's C pieces that tests reach directly (tests/nnue_internals.py imports them).

Compiled on first use against this checkout's headers (tests/compiled.py), so the engine ships
none of it: a network's accumulators computed afresh, and a board with one thread's accumulator
stack, updated lazily move by move as a search updates its own.
"""

from cpython.mem cimport PyMem_Malloc, PyMem_Free
from libc.stdint cimport int16_t
from libc.string cimport memset, memcpy
from search.board.types cimport Move, MOVE_NONE, MAX_GAME_PLY
from search.board.board cimport (
    Board, UndoRecord, do_move, undo_move, do_null_move, undo_null_move, drop_old_history, get_fen,
)
from search.board.movegen cimport parse_uci_move
from search.board.position cimport Position
from eval.nnue cimport (
    Network, AccumulatorStack, refresh_accumulators, current_accumulators, network_output, stack_prepare,
    stack_free, nnue_select_kernels,
)

from typing import List, Tuple


cdef tuple accumulator_lists(const int16_t* acc, int hidden):
    return [acc[j] for j in range(hidden)], [acc[hidden + j] for j in range(hidden)]


def nnue_accumulators(Network network not None, Position position not None) -> Tuple[List[int], List[int]]:
    """The first layer's output from White's and from Black's view, computed afresh."""
    cdef int16_t* acc = <int16_t*>PyMem_Malloc(2 * network.weights.hidden * sizeof(int16_t))
    if acc == NULL:
        raise MemoryError()
    try:
        refresh_accumulators(&network.weights, position.board, acc)
        return accumulator_lists(acc, network.weights.hidden)
    finally:
        PyMem_Free(acc)


def use_simd(bint simd) -> bool:
    """Evaluate with the fastest loops this CPU runs (`simd` true) or the portable ones, in this
    whole process; whether the AVX2 loops are now in use."""
    return nnue_select_kernels(simd) == 1


cdef class IncrementalNnue:
    """A board of its own with one thread's accumulator stack, as a search keeps them: moves
    (``"0000"`` a null move) are pushed and popped, and ``evaluate()`` / ``accumulators()``
    bring the accumulators up to date lazily from the board's change records, which tests
    compare with a full computation (``refreshed()``)."""

    cdef Board* board
    cdef AccumulatorStack stack
    cdef readonly Network network
    cdef list moves

    def __cinit__(self, *args, **kwargs):
        self.board = <Board*>PyMem_Malloc(sizeof(Board))
        memset(&self.stack, 0, sizeof(AccumulatorStack))
        if self.board == NULL:
            raise MemoryError()

    def __init__(self, Network network not None, Position position not None) -> None:
        memcpy(self.board, position.board, sizeof(Board))
        drop_old_history(self.board, 300)
        self.network = network
        self.moves = []
        if stack_prepare(&self.stack, &network.weights) != 0:
            raise MemoryError()

    def __dealloc__(self):
        stack_free(&self.stack)
        PyMem_Free(self.board)

    def push(self, uci: str) -> None:
        """Play a legal move in UCI notation, or ``"0000"``: pass (not while in check)."""
        cdef Move m
        if self.board.game_ply >= MAX_GAME_PLY - 1:
            raise IndexError("the board's history is full")
        if uci == "0000":
            if self.board.checkers:
                raise ValueError("no null move while in check")
            do_null_move(self.board)
        else:
            m = parse_uci_move(self.board, uci)
            if m == MOVE_NONE:
                raise ValueError(f"illegal move {uci!r} in {get_fen(self.board)}")
            do_move(self.board, m)
        self.moves.append(uci)

    def pop(self) -> str:
        if not self.moves:
            raise IndexError("no move to take back")
        uci = self.moves.pop()
        if uci == "0000":
            undo_null_move(self.board)
        else:
            undo_move(self.board)
        return uci

    def fen(self) -> str:
        return get_fen(self.board)

    def position(self) -> Position:
        """The current position (without its history)."""
        return Position(get_fen(self.board), bool(self.board.chess960))

    def evaluate(self) -> int:
        """The network's evaluation, reached incrementally where the stack allows."""
        return network_output(&self.network.weights, current_accumulators(&self.stack, &self.network.weights,
                                                                          self.board), self.board)

    def accumulators(self) -> Tuple[List[int], List[int]]:
        """White's and Black's accumulators, reached incrementally where the stack allows."""
        return accumulator_lists(current_accumulators(&self.stack, &self.network.weights, self.board),
                                 self.network.weights.hidden)

    def refreshed(self) -> Tuple[int, Tuple[List[int], List[int]]]:
        """(evaluation, accumulators) computed afresh, for comparison."""
        cdef int16_t* acc = <int16_t*>PyMem_Malloc(2 * self.network.weights.hidden * sizeof(int16_t))
        if acc == NULL:
            raise MemoryError()
        try:
            refresh_accumulators(&self.network.weights, self.board, acc)
            return (network_output(&self.network.weights, acc, self.board),
                    accumulator_lists(acc, self.network.weights.hidden))
        finally:
            PyMem_Free(acc)

    def last_move_changes(self) -> List[Tuple[int, int, int]]:
        """The board's record of the last move: (piece, from, to) per piece it moved, made appear
        (from 64) or vanish (to 64); piece = type + 6 * colour."""
        cdef const UndoRecord* rec
        if self.board.game_ply == 0:
            raise IndexError("no move recorded")
        rec = &self.board.history[self.board.game_ply - 1]
        return [(rec.changes[i].piece, rec.changes[i].from_sq, rec.changes[i].to_sq) for i in range(rec.change_count)]

    @property
    def refreshes(self) -> int:
        """Full computations so far."""
        return self.stack.refreshes

    @property
    def updates(self) -> int:
        """Positions reached incrementally so far."""
        return self.stack.updates
