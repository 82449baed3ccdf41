"""The Texel tuner's compiled kernel: positions packed into rows of words, and the C evaluation's
untapered sums of many packed positions without the GIL.

A tuner's compiled kernel lives beside its tuner in tools/ (as tools/nnue_kernels.pyx does for the
NNUE trainer): the engine never calls it, so it is no part of the engine's Python face.  It reads
the same C evaluation the searchers call (eval/evaluate.pxd).
"""

from cpython.mem cimport PyMem_Malloc, PyMem_Free
from libc.stdint cimport uint64_t, int32_t, int8_t
from libc.string cimport memset
from search.board.types cimport NO_PIECE, WHITE, BLACK
from search.board.bitboard cimport pop_lsb
from search.board.board cimport Board
from search.board.position cimport Position
from eval.evaluate cimport EvalTerms, TERM_COUNT, evaluate_terms

from typing import Sequence

# A packed position: by_type[0..5], by_colour[0..1], side to move (0/1).
PACKED_WORDS = 9


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
