"""The Python face of the evaluation: a score, its breakdown by term, and a benchmark; the NNUE
evaluation of a position, and a board that checks its incremental accumulators.

These hold the GIL only to read the ``Position``; the numbers come from the same C functions
the searchers call.
"""

from cpython.mem cimport PyMem_Malloc, PyMem_Free
from libc.stdint cimport uint64_t, int16_t, int32_t, int8_t
from libc.string cimport memset, memcpy
from search.board.types cimport Move, NO_PIECE, WHITE, BLACK, MOVE_NONE, MAX_GAME_PLY
from search.board.bitboard cimport pop_lsb
from search.board.board cimport (
    Board, UndoRecord, do_move, undo_move, do_null_move, undo_null_move, drop_old_history, get_fen,
)
from search.board.movegen cimport parse_uci_move
from search.board.position cimport Position
from eval.nnue cimport (
    Network, AccumulatorStack, refresh_accumulators, current_accumulators, network_output, stack_prepare,
    stack_free,
)
from eval.evaluate cimport (
    EvalTerms, TERM_COUNT, evaluate as c_evaluate, evaluate_terms,
)

# A packed position for the tuner: by_type[0..5], by_colour[0..1], side to move (0/1).
PACKED_WORDS = 9

from typing import Dict, List, Sequence, Tuple, Union

# In the order of the TERM_* codes of evaluate.pxd.
TERM_NAMES: Tuple[str, ...] = (
    "material", "psqt", "mobility", "pawns", "king_safety", "bishop_pair", "rooks", "tempo", "threats", "outposts",
)


def evaluate(Position position not None) -> int:
    """Centipawns from the side to move's view (what the search sees)."""
    return c_evaluate(position.board)


def breakdown(Position position not None) -> Dict[str, Union[int, Tuple[int, int]]]:
    """Each term as ``(mg, eg)`` from White's view, with ``phase`` (0..24) and ``total``.

    ``total`` is the tapered sum from the side to move's view, equal to ``evaluate()``.
    """
    cdef EvalTerms t
    cdef int i
    evaluate_terms(position.board, &t)
    result: Dict[str, Union[int, Tuple[int, int]]] = {}
    for i in range(TERM_COUNT):
        result[TERM_NAMES[i]] = (t.mg[i], t.eg[i])
    result["phase"] = t.phase
    result["total"] = t.total
    return result


def bench_evaluate(positions: Sequence[Position], long rounds) -> int:
    """Evaluate every position `rounds` times without the GIL; returns the sum of the scores.

    Time it from Python (see ``eval/bench.py``); the sum keeps the compiler from skipping work.
    """
    cdef int n = len(positions)
    cdef int i
    cdef long _round
    cdef long long total = 0
    cdef const Board** boards = <const Board**>PyMem_Malloc(max(n, 1) * sizeof(Board*))
    if boards == NULL:
        raise MemoryError()
    try:
        for i in range(n):
            boards[i] = (<Position?>positions[i]).board
        with nogil:
            for _round in range(rounds):
                for i in range(n):
                    total += c_evaluate(boards[i])
    finally:
        PyMem_Free(boards)
    return total


def pack_positions(positions: Sequence[Position], uint64_t[:, ::1] out) -> None:
    """Write each position's bitboards and side to move into a row of ``out`` (len x 9)."""
    cdef int i, k
    cdef Board* b
    if out.shape[0] < len(positions) or out.shape[1] != PACKED_WORDS:
        raise ValueError(f"out must have {len(positions)} rows of {PACKED_WORDS} words")
    for i in range(len(positions)):
        b = (<Position?>positions[i]).board
        for k in range(6):
            out[i, k] = b.by_type[k]
        out[i, 6] = b.by_colour[WHITE]
        out[i, 7] = b.by_colour[BLACK]
        out[i, 8] = b.side_to_move


cdef void unpack(const uint64_t* row, Board* b) noexcept nogil:
    """Enough of a Board for the evaluation: bitboards, squares and the side to move."""
    cdef int k, colour, sq
    cdef uint64_t bb
    for k in range(6):
        b.by_type[k] = row[k]
    b.by_colour[WHITE] = row[6]
    b.by_colour[BLACK] = row[7]
    b.occupied = row[6] | row[7]
    b.side_to_move = <int>row[8]
    for sq in range(64):
        b.squares[sq] = NO_PIECE
    for k in range(6):
        for colour in range(2):
            bb = row[k] & row[6 + colour]
            while bb:
                sq = pop_lsb(&bb)
                b.squares[sq] = k + 6 * colour


def raw_sums(const uint64_t[:, ::1] packed, int32_t[::1] mg, int32_t[::1] eg, int8_t[::1] phase) -> None:
    """The untapered middlegame and endgame sums (White's view) and the phase of packed positions.

    The evaluation is ``(mg * phase + eg * (24 - phase)) / 24`` of these, from the side to move's
    view; every sum is linear in every weight but ``king_attack_units``, which is what lets
    the Texel tuner (tools/texel.py) read a weight's coefficients off two calls.
    """
    cdef Py_ssize_t n = packed.shape[0], i
    cdef int k, mg_sum, eg_sum
    cdef EvalTerms t
    cdef Board* b
    if packed.shape[1] != PACKED_WORDS or mg.shape[0] < n or eg.shape[0] < n or phase.shape[0] < n:
        raise ValueError("raw_sums: arrays of mismatched shapes")
    b = <Board*>PyMem_Malloc(sizeof(Board))
    if b == NULL:
        raise MemoryError()
    memset(b, 0, sizeof(Board))
    try:
        with nogil:
            for i in range(n):
                unpack(&packed[i, 0], b)
                evaluate_terms(b, &t)
                mg_sum = 0
                eg_sum = 0
                for k in range(TERM_COUNT):
                    mg_sum += t.mg[k]
                    eg_sum += t.eg[k]
                mg[i] = mg_sum
                eg[i] = eg_sum
                phase[i] = <int8_t>t.phase
    finally:
        PyMem_Free(b)


# ---------------------------------------------------------------- NNUE

def nnue_evaluate(Network network not None, Position position not None) -> int:
    """The network's centipawns from the side to move's view, its accumulators computed afresh."""
    cdef int16_t* acc = <int16_t*>PyMem_Malloc(2 * network.weights.hidden * sizeof(int16_t))
    cdef int value
    if acc == NULL:
        raise MemoryError()
    refresh_accumulators(&network.weights, position.board, acc)
    value = network_output(&network.weights, acc, position.board.side_to_move)
    PyMem_Free(acc)
    return value


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
                                                                          self.board), self.board.side_to_move)

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
            return (network_output(&self.network.weights, acc, self.board.side_to_move),
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
