"""Kestrel's evaluations: the learned net (NNUE) and the weighted one.

The searchers evaluate with the learned net by default: its inference is eval/nnue.pyx, its file
format eval/nnue_file.py, and eval/networks.py loads the shipped net or any file.  The weighted
evaluation, a tapered weighted sum whose weights live in ``eval.weights``, is the alternative
(UCI ``Use NNUE`` false) and the Texel tuner's; this package's face is the weighted one:
``evaluate(position)`` is its score (centipawns, side to move's view); ``breakdown(position)``
gives each term's ``(mg, eg)`` from White's view.  ``load_weights`` and ``load_vector`` replace
the weights in use (for a tuner); never while a search runs.  The net's face is
``eval.nnue_api.nnue_evaluate``.

Note: ``eval.evaluate`` is the function here, not the C module of the same name, which is
reached as ``sys.modules["eval.evaluate"]`` or through ``cimport`` from Cython.
"""

from eval.api import TERM_NAMES, bench_evaluate, breakdown, evaluate  # binds eval.evaluate last
from eval.evaluate import current_weights, load_vector, load_weights, weights_as_vector
from eval.report import format_breakdown
from eval.weights import default_weights, weight_names

__all__ = [
    "TERM_NAMES",
    "bench_evaluate",
    "breakdown",
    "current_weights",
    "default_weights",
    "evaluate",
    "format_breakdown",
    "load_vector",
    "load_weights",
    "weight_names",
    "weights_as_vector",
]
