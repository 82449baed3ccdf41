"""Net files for tests: a net that says the same about every position."""

from __future__ import annotations

from array import array
from pathlib import Path

from eval.nnue_file import QA, QB, NetParameters, write_net


def constant_net_file(path: Path, centipawns: int = 1235) -> Path:
    """A net whose only weight is its output bias: every position is +`centipawns` for the side to move."""
    hidden = 16
    write_net(path, NetParameters(hidden=hidden, qa=QA, qb=QB, scale=400, description="test: constant",
                                  feature_weights=array("h", [0] * (768 * hidden)),
                                  feature_bias=array("h", [0] * hidden),
                                  output_weights=array("h", [0] * (2 * hidden)),
                                  output_bias=centipawns * QA * QB // 400))
    return path
