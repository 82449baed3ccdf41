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

The numbers are fitted: the Texel tuner (``python -m tools.texel``, docs/texel.md) fits every weight
except ``king_attack_units`` to positions of Kestrel's self-play, pulled towards the values above (L2)
and leaving weights seen in fewer than 500 positions alone.  The threats, safe checks, pawn chains,
passed-pawn details, outposts and rooks on the seventh started from conventional guesses.  Their
games are in the experiments ledger (``python -m tools.ledger --id ev-``).

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
        "pawn": (68, 111),
        "knight": (328, 283),
        "bishop": (343, 296),
        "rook": (496, 519),
        "queen": (1034, 941),
        "king": (0, 0),
    },
    "psqt_mg": {
        "pawn": [
            [0, 0, 0, 0, 0, 0, 0, 0],
            [95, 134, 64, 96, 67, 126, 32, -12],
            [0, 14, 25, 32, 63, 58, 26, -19],
            [-19, 16, 0, 16, 24, 18, 4, -26],
            [-12, 0, -3, 7, 2, 11, 9, -17],
            [-8, -2, -4, 1, -6, -1, 21, -12],
            [-21, -3, -28, -5, -25, 13, 23, -30],
            [0, 0, 0, 0, 0, 0, 0, 0],
        ],
        "knight": [
            [-167, -89, -34, -49, 61, -97, -15, -107],
            [-69, -39, 68, 36, 24, 62, 5, -17],
            [-43, 61, 38, 66, 82, 127, 73, 43],
            [-11, 8, 22, 51, 24, 67, 15, 31],
            [-2, 0, 18, 15, 31, 14, 14, -5],
            [-24, -15, 10, 10, 17, 16, 25, -21],
            [-35, -51, -10, -2, 4, 19, -16, -15],
            [-105, -20, -58, -31, -21, -30, -9, -23],
        ],
        "bishop": [
            [-29, 4, -82, -37, -25, -42, 7, -8],
            [-28, 14, -18, -11, 30, 57, 18, -47],
            [-14, 39, 41, 40, 35, 50, 35, 2],
            [-4, 6, 17, 48, 28, 36, 11, -6],
            [-4, 17, 17, 19, 25, 7, 10, 4],
            [-2, 17, 27, -3, 0, 29, 16, 0],
            [6, 11, 12, 2, 15, 19, 37, 3],
            [-33, -5, -8, -19, -9, -6, -39, -17],
        ],
        "rook": [
            [32, 40, 32, 50, 63, 11, 31, 45],
            [23, 27, 57, 63, 80, 69, 26, 44],
            [-2, 19, 28, 35, 19, 47, 61, 16],
            [-28, -9, 9, 24, 22, 37, -6, -23],
            [-42, -24, -13, -3, 9, -2, 4, -25],
            [-43, -21, -14, -18, -4, -4, -5, -27],
            [-47, -12, -20, -12, -2, 15, -8, -69],
            [-6, -4, -1, 0, 5, 12, -26, -10],
        ],
        "queen": [
            [-30, 0, 29, 12, 61, 44, 43, 41],
            [-22, -37, -1, 1, -15, 57, 28, 52],
            [-11, -13, 3, 8, 31, 54, 45, 57],
            [-26, -23, -16, -21, -1, 17, -3, 1],
            [-8, -24, -3, -15, -2, -7, 0, -6],
            [-6, 1, -13, 1, -7, 0, 15, 9],
            [-33, -6, 11, 2, 10, 8, -3, 1],
            [0, -14, -5, 7, -15, -25, -31, -50],
        ],
        "king": [
            [-65, 23, 16, -15, -56, -34, 2, 13],
            [29, -1, -20, -7, -8, -4, -38, -29],
            [-9, 24, 2, -16, -20, 4, 20, -22],
            [-17, -20, -12, -27, -32, -27, -14, -36],
            [-49, -1, -29, -39, -48, -43, -33, -51],
            [-14, -12, -25, -46, -44, -28, -15, -29],
            [1, 7, -8, -62, -43, -19, 13, 14],
            [-16, 27, 15, -56, 16, -19, 21, 10],
        ],
    },
    "psqt_eg": {
        "pawn": [
            [0, 0, 0, 0, 0, 0, 0, 0],
            [159, 170, 164, 135, 144, 133, 161, 179],
            [86, 105, 83, 67, 50, 54, 81, 73],
            [44, 24, 22, 1, -8, 7, 5, 14],
            [25, 18, 0, -15, -15, -4, 5, 5],
            [11, 8, -6, -9, 1, 4, -7, 3],
            [19, 9, 14, 12, 9, 8, 8, 2],
            [0, 0, 0, 0, 0, 0, 0, 0],
        ],
        "knight": [
            [-58, -36, -12, -28, -31, -28, -63, -99],
            [-23, -6, -25, -2, -7, -25, -24, -52],
            [-20, -17, 13, 8, 1, -13, -19, -40],
            [-17, 1, 23, 21, 24, 9, 9, -13],
            [-15, -8, 16, 31, 12, 16, 2, -22],
            [-25, -9, -1, 13, 16, -9, -24, -20],
            [-44, -21, -8, -9, -1, -17, -25, -42],
            [-29, -51, -22, -17, -24, -20, -49, -64],
        ],
        "bishop": [
            [-14, -19, -9, -10, -5, -9, -15, -24],
            [-8, -6, 9, -12, -5, -15, -4, -14],
            [4, -4, 2, 2, 2, 4, 0, 3],
            [-5, 15, 11, 11, 11, 7, -1, -2],
            [-4, 4, 13, 11, 0, 9, -1, -9],
            [-12, -1, 9, 13, 10, 1, -4, -17],
            [-14, -16, -9, -8, 10, -15, -11, -25],
            [-21, -11, -28, -4, -8, -12, -5, -17],
        ],
        "rook": [
            [10, 6, 14, 12, 11, 16, 7, 11],
            [10, 8, 10, 10, -4, 4, 8, 2],
            [13, 9, 7, 2, 4, 1, -5, -1],
            [4, 8, 13, 3, 3, 0, 3, 0],
            [4, 5, 6, 4, -2, -3, -10, -9],
            [0, 2, -1, -6, -8, -15, -7, -16],
            [-10, -2, 0, -2, -14, -7, -13, -3],
            [-10, -5, 3, 1, -5, -9, 5, -13],
        ],
        "queen": [
            [-9, 22, 22, 27, 27, 19, 10, 18],
            [-16, 21, 34, 42, 60, 25, 30, -2],
            [-20, 8, 9, 47, 47, 35, 17, 9],
            [3, 24, 24, 43, 57, 40, 55, 38],
            [-18, 28, 19, 45, 31, 33, 39, 23],
            [-16, -25, 15, 7, 7, 17, 10, 7],
            [-22, -23, -30, -16, -12, -25, -38, -32],
            [-33, -28, -22, -46, -5, -32, -20, -41],
        ],
        "king": [
            [-74, -34, -18, -18, -11, 15, 2, -19],
            [-12, 17, 14, 15, 19, 35, 24, 13],
            [10, 18, 21, 15, 22, 39, 34, 15],
            [-6, 20, 26, 27, 18, 28, 31, 5],
            [-18, -6, 18, 25, 25, 28, 8, -9],
            [-19, 1, 6, 22, 22, 16, 8, -8],
            [-21, -7, 4, 17, 13, 7, 7, -19],
            [-53, -35, -17, -9, -32, -13, -36, -43],
        ],
    },
    # Fruit 2.1: knight 4/4 per square around 4, bishop 5/5 around 6, rook 2/4 around 7,
    # queen 1/2 around 13.  Centring keeps the average piece worth its material value.
    "mobility_mg": {
        "knight": [-16, -10, -3, 1, 4, 4, 2, 5, 3],
        "bishop": [-33, -26, -16, -16, -6, -2, 2, 6, 2, 7, 14, 18, 30, 31],
        "rook": [-13, -9, -7, -4, -3, 0, -1, -3, 3, 5, 14, 8, 6, 8, 15],
        "queen": [-12, -5, -7, -11, -14, -10, -11, -8, -2, -3, -5, -2, 0, 0,
                  0, 1, 6, 5, 7, 9, 7, 10, 10, 10, 11, 12, 13, 14],
    },
    "mobility_eg": {
        "knight": [-16, -12, -10, -4, 10, 7, 11, 11, 5],
        "bishop": [-39, -27, -25, -12, -9, 3, 2, 11, 16, 19, 15, 25, 30, 27],
        "rook": [-28, -22, -22, -9, -9, -7, -1, -1, 8, 13, 15, 20, 26, 22, 4],
        "queen": [-26, -24, -22, -20, -20, -16, -14, -14, -10, -8, -6, -2, 0, 2,
                  6, 4, 10, 10, 12, 15, 14, 14, 18, 18, 20, 22, 26, 28],
    },
    # By the pawn's own rank, 1..8 (ranks 1 and 8 never hold a pawn).
    "passed_pawn_mg": [0, -4, 2, 3, 31, 33, 32, 0],
    "passed_pawn_eg": [0, 11, 20, 36, 57, 63, 43, 0],
    "isolated_pawn": (-6, -5),     # per pawn with no own pawn on a neighbouring file
    "doubled_pawn": (-11, -24),      # per extra pawn on a file
    "bishop_pair": (37, 46),         # bishops on both square colours
    "rook_open_file": (39, -11),      # no pawn on the rook's file
    "rook_semi_open_file": (16, 21),  # no own pawn, an enemy pawn on the rook's file
    # King safety, mg only.
    # Shield pawns count only for a king on the wings (files a-c, f-h): a king on d or e has not
    # castled, and its centre pawns should be free to advance.
    "king_shield_near": 8,          # per own pawn on the three files around the king, one rank ahead
    "king_shield_far": 9,            # the same, two ranks ahead
    "king_open_file": -19,           # no own pawn on the king's file
    # Units per square of the enemy king's zone (king square and its neighbours) a piece attacks.
    "king_attack_units": {"knight": 2, "bishop": 2, "rook": 3, "queen": 5},
    "king_danger": [
        0, 0, 0, 1, 4, 8, 0, 9, 6, 11,
        13, 13, 15, 16, 17, 21, 24, 27, 30, 33,
        34, 38, 43, 42, 45, 48, 52, 56, 61, 65,
        70, 75, 84, 90, 95, 101, 106, 112, 118, 124,
        130, 136, 141, 147, 153, 159, 165, 171, 177, 183,
        188, 194, 200, 206, 212, 218, 224, 229, 235, 241,
        247, 250,
    ],
    # For the side to move; small, so that odd and even search depths do not disagree much.
    "tempo": (14, 3),
    # Fitted by the tuner from conventional guesses (docs/texel.md).
    # Threats, per enemy piece (not pawn or king) attacked: by a pawn; a rook or queen by a knight
    # or bishop; a queen by a rook; and any piece we attack that none of theirs defends.
    "threat_by_pawn": (48, 30),
    "threat_by_minor": (33, 32),
    "threat_by_rook": (32, 16),
    "hanging_piece": (21, 14),
    # King safety, mg only: per square the piece type attacks that would check the enemy king
    # and that no enemy piece attacks.
    "safe_check": {"knight": 19, "bishop": 7, "rook": 21, "queen": 25},
    # Pawns: defended by an own pawn; with an own pawn beside it; backward (no own pawn can come
    # up to defend it and an enemy pawn guards its stop square).
    "pawn_supported": (10, 8),
    "pawn_phalanx": (5, -2),
    "backward_pawn": (0, -2),
    # Passed pawns beyond their rank.  "Per step" values are multiplied by the pawn's rank beyond
    # the third (1 on the fourth rank .. 4 on the seventh).
    "passed_blocked": (-9, -13),        # something stands on its stop square
    "passed_supported": (7, 11),        # an own pawn defends it
    "passed_free_path": (0, 13),         # per step: nothing of theirs on or attacking its path
    "passed_king_distance": (-3, 9),     # per step and per square the enemy king is further from its stop square
    "passed_unstoppable": (0, 298),     # pawn endings: outside the square of the enemy king
    # Pieces: knights and bishops on outposts (ranks 4-6, defended by a pawn, out of reach of enemy
    # pawns); rooks on the seventh with the enemy king or pawns on their first two ranks.
    "knight_outpost": (24, 12),
    "bishop_outpost": (12, 8),
    "rook_seventh": (4, 13),
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
