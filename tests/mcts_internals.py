"""What the MCTS tests reach below the searcher's Python face: hand-made trees and the C formulas.

`HandTree`, `ucb`, `win_probability`, `score_of_probability`, `prior_refresh_depth`,
`store_tt_move`, `verify_favourite` and the constants come from tests/_mcts_internals.pyx
(built with the core, tests/compiled.py);
`puct` is PUCT written out plainly, to check selection's rearranged arithmetic against.
"""

from __future__ import annotations

import math

from compiled import load

_internals = load("_mcts_internals")

HandTree = _internals.HandTree
MAX_TREE_DEPTH: int = _internals.MAX_TREE_DEPTH
VERIFY_MARGIN_CP: int = _internals.VERIFY_MARGIN_CP
DECISIVE_SCORE_CP: int = _internals.DECISIVE_SCORE_CP
prior_refresh_depth = _internals.prior_refresh_depth
score_of_probability = _internals.score_of_probability
store_tt_move = _internals.store_tt_move
ucb = _internals.ucb
verify_favourite = _internals.verify_favourite
win_probability = _internals.win_probability


def puct(q: float, prior: float, parent_visits: int, child_visits: int, c_puct: float) -> float:
    """PUCT of a child with value `q`: the score selection maximises."""
    return q + c_puct * prior * math.sqrt(parent_visits) / (1.0 + child_visits)
