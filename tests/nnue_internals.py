"""What the NNUE tests reach below the net's Python face: accumulators, and a board that keeps them
incrementally as a search does.

`IncrementalNnue`, `nnue_accumulators` and `use_simd` come from tests/_nnue_internals.pyx (built
with the core, tests/compiled.py).
"""

from __future__ import annotations

from compiled import load

_internals = load("_nnue_internals")

IncrementalNnue = _internals.IncrementalNnue
nnue_accumulators = _internals.nnue_accumulators
use_simd = _internals.use_simd
