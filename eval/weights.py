"""Kestrel's evaluation weights: the one table a person reads and a tuner fits.

Every value is in centipawns.  A pair ``(mg, eg)`` is the middlegame and the endgame value
of a term; the evaluation blends the two by material phase.  Terms marked "mg only" have no
endgame part (king safety matters while there is material to attack with).

Where the starting values come from:

* material and piece-square tables: PeSTO by Ronald Friederich, as published on the Chess
  Programming Wiki ("PeSTO's Evaluation Function").  They were tuned with no other terms, so
  they already carry some of what mobility and passed pawns say; a tuner will sort that out.
* mobility, isolated/doubled pawns, bishop pair and rooks on open files: Fruit 2.1 by Fabien
  Letouzey (linear mobility around a typical count, written out per count so that a tuner can
  bend the curve).
* passed pawns: Fruit 2.1's rank curve, halved because PeSTO's pawn tables already pay for
  advanced pawns.
* king safety: attack units per attacking piece and a danger curve shaped after the
  "SafetyTable" of the Chess Programming Wiki's King Safety page, halved; pawn shield and
  open king file values are conventional starting guesses.

The layout conventions:

* piece-square tables are 8 rows of 8, from White's view, as a person reads a diagram: the
  first row is rank 8, the first column is file a.  Black uses the same table flipped.
* mobility lists are indexed by the number of squares a piece attacks that are not occupied by
  its own side (knight 0..8, bishop 0..13, rook 0..14, queen 0..27).
* passed pawn lists are indexed by the pawn's rank from its own side (0 = rank 1 .. 7 = rank 8).
* ``king_danger`` is indexed by attack units (capped at the last entry) and applied only when
  two or more pieces attack the squares around the enemy king.

``to_vector``/``from_vector`` turn the table into a flat list of integers and back, in a fixed
order, with ``weight_names`` naming each entry; that is the form a tuner works on.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

PIECE_NAMES: tuple[str, ...] = ("pawn", "knight", "bishop", "rook", "queen", "king")
MOBILE_PIECES: tuple[str, ...] = ("knight", "bishop", "rook", "queen")
MOBILITY_COUNTS: dict[str, int] = {"knight": 9, "bishop": 14, "rook": 15, "queen": 28}

Weights = dict[str, Any]

WEIGHTS: Weights = {
    # (mg, eg) per piece.  The king has no material value: it is never traded.
    "material": {
        "pawn": (82, 94),
        "knight": (337, 281),
        "bishop": (365, 297),
        "rook": (477, 512),
        "queen": (1025, 936),
        "king": (0, 0),
    },
    "psqt_mg": {
        "pawn": [
            [0, 0, 0, 0, 0, 0, 0, 0],
            [98, 134, 61, 95, 68, 126, 34, -11],
            [-6, 7, 26, 31, 65, 56, 25, -20],
            [-14, 13, 6, 21, 23, 12, 17, -23],
            [-27, -2, -5, 12, 17, 6, 10, -25],
            [-26, -4, -4, -10, 3, 3, 33, -12],
            [-35, -1, -20, -23, -15, 24, 38, -22],
            [0, 0, 0, 0, 0, 0, 0, 0],
        ],
        "knight": [
            [-167, -89, -34, -49, 61, -97, -15, -107],
            [-73, -41, 72, 36, 23, 62, 7, -17],
            [-47, 60, 37, 65, 84, 129, 73, 44],
            [-9, 17, 19, 53, 37, 69, 18, 22],
            [-13, 4, 16, 13, 28, 19, 21, -8],
            [-23, -9, 12, 10, 19, 17, 25, -16],
            [-29, -53, -12, -3, -1, 18, -14, -19],
            [-105, -21, -58, -33, -17, -28, -19, -23],
        ],
        "bishop": [
            [-29, 4, -82, -37, -25, -42, 7, -8],
            [-26, 16, -18, -13, 30, 59, 18, -47],
            [-16, 37, 43, 40, 35, 50, 37, -2],
            [-4, 5, 19, 50, 37, 37, 7, -2],
            [-6, 13, 13, 26, 34, 12, 10, 4],
            [0, 15, 15, 15, 14, 27, 18, 10],
            [4, 15, 16, 0, 7, 21, 33, 1],
            [-33, -3, -14, -21, -13, -12, -39, -21],
        ],
        "rook": [
            [32, 42, 32, 51, 63, 9, 31, 43],
            [27, 32, 58, 62, 80, 67, 26, 44],
            [-5, 19, 26, 36, 17, 45, 61, 16],
            [-24, -11, 7, 26, 24, 35, -8, -20],
            [-36, -26, -12, -1, 9, -7, 6, -23],
            [-45, -25, -16, -17, 3, 0, -5, -33],
            [-44, -16, -20, -9, -1, 11, -6, -71],
            [-19, -13, 1, 17, 16, 7, -37, -26],
        ],
        "queen": [
            [-28, 0, 29, 12, 59, 44, 43, 45],
            [-24, -39, -5, 1, -16, 57, 28, 54],
            [-13, -17, 7, 8, 29, 56, 47, 57],
            [-27, -27, -16, -16, -1, 17, -2, 1],
            [-9, -26, -9, -10, -2, -4, 3, -3],
            [-14, 2, -11, -2, -5, 2, 14, 5],
            [-35, -8, 11, 2, 8, 15, -3, 1],
            [-1, -18, -9, 10, -15, -25, -31, -50],
        ],
        "king": [
            [-65, 23, 16, -15, -56, -34, 2, 13],
            [29, -1, -20, -7, -8, -4, -38, -29],
            [-9, 24, 2, -16, -20, 6, 22, -22],
            [-17, -20, -12, -27, -30, -25, -14, -36],
            [-49, -1, -27, -39, -46, -44, -33, -51],
            [-14, -14, -22, -46, -44, -30, -15, -27],
            [1, 7, -8, -64, -43, -16, 9, 8],
            [-15, 36, 12, -54, 8, -28, 24, 14],
        ],
    },
    "psqt_eg": {
        "pawn": [
            [0, 0, 0, 0, 0, 0, 0, 0],
            [178, 173, 158, 134, 147, 132, 165, 187],
            [94, 100, 85, 67, 56, 53, 82, 84],
            [32, 24, 13, 5, -2, 4, 17, 17],
            [13, 9, -3, -7, -7, -8, 3, -1],
            [4, 7, -6, 1, 0, -5, -1, -8],
            [13, 8, 8, 10, 13, 0, 2, -7],
            [0, 0, 0, 0, 0, 0, 0, 0],
        ],
        "knight": [
            [-58, -38, -13, -28, -31, -27, -63, -99],
            [-25, -8, -25, -2, -9, -25, -24, -52],
            [-24, -20, 10, 9, -1, -9, -19, -41],
            [-17, 3, 22, 22, 22, 11, 8, -18],
            [-18, -6, 16, 25, 16, 17, 4, -18],
            [-23, -3, -1, 15, 10, -3, -20, -22],
            [-42, -20, -10, -5, -2, -20, -23, -44],
            [-29, -51, -23, -15, -22, -18, -50, -64],
        ],
        "bishop": [
            [-14, -21, -11, -8, -7, -9, -17, -24],
            [-8, -4, 7, -12, -3, -13, -4, -14],
            [2, -8, 0, -1, -2, 6, 0, 4],
            [-3, 9, 12, 9, 14, 10, 3, 2],
            [-6, 3, 13, 19, 7, 10, -3, -9],
            [-12, -3, 8, 10, 13, 3, -7, -15],
            [-14, -18, -7, -1, 4, -9, -15, -27],
            [-23, -9, -23, -5, -9, -16, -5, -17],
        ],
        "rook": [
            [13, 10, 18, 15, 12, 12, 8, 5],
            [11, 13, 13, 11, -3, 3, 8, 3],
            [7, 7, 7, 5, 4, -3, -5, -3],
            [4, 3, 13, 1, 2, 1, -1, 2],
            [3, 5, 8, 4, -5, -6, -8, -11],
            [-4, 0, -5, -1, -7, -12, -8, -16],
            [-6, -6, 0, 2, -9, -9, -11, -3],
            [-9, 2, 3, -1, -5, -13, 4, -20],
        ],
        "queen": [
            [-9, 22, 22, 27, 27, 19, 10, 20],
            [-17, 20, 32, 41, 58, 25, 30, 0],
            [-20, 6, 9, 49, 47, 35, 19, 9],
            [3, 22, 24, 45, 57, 40, 57, 36],
            [-18, 28, 19, 47, 31, 34, 39, 23],
            [-16, -27, 15, 6, 9, 17, 10, 5],
            [-22, -23, -30, -16, -16, -23, -36, -32],
            [-33, -28, -22, -43, -5, -32, -20, -41],
        ],
        "king": [
            [-74, -35, -18, -18, -11, 15, 4, -17],
            [-12, 17, 14, 17, 17, 38, 23, 11],
            [10, 17, 23, 15, 20, 45, 44, 13],
            [-8, 22, 24, 27, 26, 33, 26, 3],
            [-18, -4, 21, 24, 27, 23, 9, -11],
            [-19, -3, 11, 21, 23, 16, 7, -9],
            [-27, -11, 4, 13, 14, 4, -5, -17],
            [-53, -34, -21, -11, -28, -14, -24, -43],
        ],
    },
    # Fruit 2.1: knight 4/4 per square around 4, bishop 5/5 around 6, rook 2/4 around 7,
    # queen 1/2 around 13.  Centring keeps the average piece worth its material value.
    "mobility_mg": {
        "knight": [-16, -12, -8, -4, 0, 4, 8, 12, 16],
        "bishop": [-30, -25, -20, -15, -10, -5, 0, 5, 10, 15, 20, 25, 30, 35],
        "rook": [-14, -12, -10, -8, -6, -4, -2, 0, 2, 4, 6, 8, 10, 12, 14],
        "queen": [-13, -12, -11, -10, -9, -8, -7, -6, -5, -4, -3, -2, -1, 0,
                  1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14],
    },
    "mobility_eg": {
        "knight": [-16, -12, -8, -4, 0, 4, 8, 12, 16],
        "bishop": [-30, -25, -20, -15, -10, -5, 0, 5, 10, 15, 20, 25, 30, 35],
        "rook": [-28, -24, -20, -16, -12, -8, -4, 0, 4, 8, 12, 16, 20, 24, 28],
        "queen": [-26, -24, -22, -20, -18, -16, -14, -12, -10, -8, -6, -4, -2, 0,
                  2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28],
    },
    # By the pawn's own rank, 1..8 (ranks 1 and 8 never hold a pawn).
    "passed_pawn_mg": [0, 5, 5, 8, 14, 23, 35, 0],
    "passed_pawn_eg": [0, 10, 10, 16, 28, 46, 70, 0],
    "isolated_pawn": (-10, -20),     # per pawn with no own pawn on a neighbouring file
    "doubled_pawn": (-10, -20),      # per extra pawn on a file
    "bishop_pair": (50, 50),         # bishops on both square colours
    "rook_open_file": (20, 10),      # no pawn on the rook's file
    "rook_semi_open_file": (10, 10),  # no own pawn, an enemy pawn on the rook's file
    # King safety, mg only.
    # Shield pawns count only for a king on the wings (files a-c, f-h): a king on d or e has not
    # castled, and its centre pawns should be free to advance.
    "king_shield_near": 12,          # per own pawn on the three files around the king, one rank ahead
    "king_shield_far": 6,            # the same, two ranks ahead
    "king_open_file": -10,           # no own pawn on the king's file
    # Units per square of the enemy king's zone (king square and its neighbours) a piece attacks.
    "king_attack_units": {"knight": 2, "bishop": 2, "rook": 3, "queen": 5},
    "king_danger": [
        0, 0, 0, 1, 1, 2, 3, 4, 6, 7,
        9, 11, 13, 15, 17, 19, 22, 25, 28, 31,
        34, 37, 41, 42, 44, 48, 52, 56, 61, 65,
        70, 75, 84, 90, 95, 101, 106, 112, 118, 124,
        130, 136, 141, 147, 153, 159, 165, 171, 177, 183,
        188, 194, 200, 206, 212, 218, 224, 229, 235, 241,
        247, 250,
    ],
    # For the side to move; small, so that odd and even search depths do not disagree much.
    "tempo": (10, 5),
}


def default_weights() -> Weights:
    """A fresh, independent copy of the starting table."""
    return copy.deepcopy(WEIGHTS)


def _walk(node: Any, name: str, out: list[tuple[str, int]]) -> None:
    if isinstance(node, dict):
        for key, value in node.items():
            _walk(value, f"{name}.{key}" if name else key, out)
    elif isinstance(node, (list, tuple)):
        for index, value in enumerate(node):
            _walk(value, f"{name}[{index}]", out)
    else:
        out.append((name, int(node)))


def _named_values(weights: Weights) -> list[tuple[str, int]]:
    out: list[tuple[str, int]] = []
    _walk(weights, "", out)
    return out


def weight_names(weights: Weights = WEIGHTS) -> list[str]:
    """The name of every entry of ``to_vector``, e.g. ``psqt_mg.knight[0][1]``."""
    return [name for name, _ in _named_values(weights)]


def to_vector(weights: Weights) -> list[int]:
    """All weights as one flat list, in the order of ``weight_names``."""
    return [value for _, value in _named_values(weights)]


def from_vector(values: Sequence[int], template: Weights = WEIGHTS) -> Weights:
    """The table of ``template``'s shape filled with ``values`` (ValueError on a length mismatch)."""
    values = [int(round(v)) for v in values]
    position = 0

    def fill(node: Any) -> Any:
        nonlocal position
        if isinstance(node, dict):
            return {key: fill(value) for key, value in node.items()}
        if isinstance(node, (list, tuple)):
            filled = [fill(value) for value in node]
            return tuple(filled) if isinstance(node, tuple) else filled
        if position >= len(values):
            raise ValueError("too few values for the weight table")
        position += 1
        return values[position - 1]

    result: dict[str, Any] = fill(template)
    if position != len(values):
        raise ValueError(f"{len(values)} values for a table of {position} weights")
    return result
