"""The Python face of the weighted evaluation: a score, its breakdown by term, and a benchmark.

These hold the GIL only to read the ``Position``; the numbers come from the same C functions
the searchers call.  The net's face is eval/nnue_api.pyx; the Texel tuner's kernel, which only
the tuner calls, is tools/texel_kernels.pyx.
"""

from cpython.mem cimport PyMem_Malloc, PyMem_Free
from search.board.board cimport Board
from search.board.position cimport Position
from eval.evaluate cimport (
    EvalTerms, TERM_COUNT, evaluate as c_evaluate, evaluate_terms,
)

from typing import Dict, Sequence, Tuple, Union

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
