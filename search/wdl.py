"""The WDL model: win, draw and loss chances from a score and the material on the board.

The model is a pair of logistic curves, as Stockfish's win-rate model is shaped:

    win  = 1 / (1 + exp((a - cp) / b))        loss = 1 / (1 + exp((a + cp) / b))
    a = A0 + A1 * x,   b = B0 + B1 * x,       x = material (P=1, N=B=3, R=5, Q=9; 17..78) / 58

so a score of `a` centipawns wins half the time, and `b` sets how fast the chances
change with the score.  Its users: MCTS values its leaves with win + draw / 2
(search/mcts_value.pyx reads the constants from here), and `UCI_ShowWDL` reports the
chances (uci_engine/wdl.py).  The constants were fitted to the shipped net's own games
(`python -m tools.wdl_fit games.pgn`; the fit and its data are in docs/play.md): each
evaluation has its own centipawn scale, so a new net or evaluation wants a new fit.
"""

from __future__ import annotations

import math

from search.board.position import PAWN_UNITS, Position

# Fitted to kestrel-8's 55,170 scored moves in 1,005 games at 2 s + 0.02 s against kestrel-7
# (docs/play.md): with much material a small edge already decides; in endgames it takes more.
A0, A1 = 379.7, -219.7
B0, B1 = 89.3, 38.4


def material_of(position: Position) -> int:
    """Both sides' material in pawns (the kings count nothing)."""
    return sum(PAWN_UNITS[letter.lower()] * count for letter, count in position.piece_counts().items())


def model_parameters(material: int, a0: float = A0, a1: float = A1, b0: float = B0,
                     b1: float = B1) -> tuple[float, float]:
    x = min(max(material, 17), 78) / 58.0
    return a0 + a1 * x, max(1.0, b0 + b1 * x)


def wdl_probabilities(cp: float, material: int, a0: float = A0, a1: float = A1, b0: float = B0,
                      b1: float = B1) -> tuple[float, float, float]:
    """(win, draw, loss) for the side whose score `cp` is."""
    a, b = model_parameters(material, a0, a1, b0, b1)
    win = 1.0 / (1.0 + math.exp(min(700.0, (a - cp) / b)))
    loss = 1.0 / (1.0 + math.exp(min(700.0, (a + cp) / b)))
    return win, max(0.0, 1.0 - win - loss), loss
