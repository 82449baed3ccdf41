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

Since session 5 the numbers are fitted: the Texel tuner (``python -m eval.texel``, docs/texel.md)
refitted every weight except ``king_attack_units`` to 898,627 positions of Kestrel's self-play,
pulled towards the values above (L2) and leaving weights seen in fewer than 500 positions alone.
Against the hand-set table it scored +40.5 Elo (+22.4 .. +58.8) in 1,000 games at 2 s + 0.02 s.

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
        "pawn": (76, 113),
        "knight": (333, 282),
        "bishop": (348, 295),
        "rook": (490, 517),
        "queen": (1030, 939),
        "king": (0, 0),
    },
    "psqt_mg": {
        "pawn": [
            [0, 0, 0, 0, 0, 0, 0, 0],
            [96, 134, 62, 95, 67, 126, 33, -12],
            [-3, 11, 25, 31, 63, 57, 25, -20],
            [-18, 14, 3, 17, 24, 15, 8, -25],
            [-19, 0, -4, 7, 7, 10, 11, -19],
            [-12, -1, -1, 1, 1, 3, 28, -9],
            [-27, -3, -29, -11, -24, 16, 29, -29],
            [0, 0, 0, 0, 0, 0, 0, 0],
        ],
        "knight": [
            [-167, -89, -34, -49, 61, -97, -15, -107],
            [-71, -40, 70, 36, 23, 62, 6, -17],
            [-45, 61, 38, 66, 83, 128, 73, 43],
            [-10, 11, 21, 52, 28, 68, 15, 27],
            [-6, 2, 17, 14, 30, 16, 17, -6],
            [-23, -12, 9, 10, 18, 15, 26, -19],
            [-32, -52, -11, -2, 3, 19, -15, -17],
            [-105, -20, -58, -32, -19, -29, -12, -23],
        ],
        "bishop": [
            [-29, 4, -82, -37, -25, -42, 7, -8],
            [-27, 15, -18, -12, 30, 58, 18, -47],
            [-15, 38, 42, 40, 35, 50, 36, 0],
            [-4, 5, 18, 49, 32, 36, 9, -4],
            [-5, 15, 15, 22, 29, 7, 10, 4],
            [-1, 16, 22, 1, 3, 28, 17, 4],
            [5, 13, 14, 2, 14, 20, 36, 2],
            [-33, -4, -8, -20, -11, -8, -39, -19],
        ],
        "rook": [
            [32, 41, 32, 50, 63, 10, 31, 44],
            [25, 30, 58, 63, 80, 68, 26, 44],
            [-3, 19, 27, 35, 18, 46, 61, 16],
            [-26, -10, 8, 25, 23, 36, -7, -22],
            [-39, -25, -13, -2, 9, -5, 5, -24],
            [-44, -23, -15, -18, -1, -2, -5, -30],
            [-46, -14, -20, -11, -2, 13, -7, -70],
            [-8, -7, 0, 5, 9, 12, -31, -15],
        ],
        "queen": [
            [-29, 0, 29, 12, 60, 44, 43, 43],
            [-23, -38, -3, 1, -16, 57, 28, 53],
            [-12, -15, 5, 8, 30, 55, 46, 57],
            [-26, -25, -16, -19, -1, 17, -3, 1],
            [-9, -25, -6, -13, -2, -6, 1, -5],
            [-10, 2, -12, 0, -6, 1, 14, 7],
            [-34, -7, 12, 2, 10, 11, -3, 1],
            [-1, -16, -7, 9, -15, -25, -31, -50],
        ],
        "king": [
            [-65, 23, 16, -15, -56, -34, 2, 13],
            [29, -1, -20, -7, -8, -4, -38, -29],
            [-9, 24, 2, -16, -20, 5, 21, -22],
            [-17, -20, -12, -27, -31, -26, -14, -36],
            [-49, -1, -28, -39, -47, -43, -33, -51],
            [-14, -13, -24, -46, -44, -29, -15, -28],
            [1, 7, -8, -63, -43, -18, 12, 11],
            [-16, 31, 13, -55, 14, -23, 21, 12],
        ],
    },
    "psqt_eg": {
        "pawn": [
            [0, 0, 0, 0, 0, 0, 0, 0],
            [168, 171, 160, 132, 144, 132, 163, 183],
            [91, 104, 83, 65, 50, 53, 82, 78],
            [41, 25, 19, 2, -7, 6, 10, 15],
            [22, 16, 0, -11, -12, -5, 5, 4],
            [10, 10, -6, -5, 2, 1, -4, 1],
            [17, 8, 11, 11, 10, 4, 3, -3],
            [0, 0, 0, 0, 0, 0, 0, 0],
        ],
        "knight": [
            [-58, -37, -12, -28, -31, -27, -63, -99],
            [-24, -7, -25, -2, -8, -25, -24, -52],
            [-22, -18, 12, 9, 0, -11, -19, -40],
            [-17, 2, 23, 21, 23, 10, 8, -15],
            [-16, -7, 16, 28, 14, 16, 3, -20],
            [-24, -6, -2, 14, 13, -7, -22, -21],
            [-43, -20, -9, -7, -1, -18, -24, -43],
            [-29, -51, -22, -16, -23, -19, -49, -64],
        ],
        "bishop": [
            [-14, -20, -10, -9, -6, -9, -16, -24],
            [-8, -5, 8, -12, -4, -14, -4, -14],
            [3, -6, 1, 1, 0, 5, 0, 3],
            [-4, 12, 12, 10, 12, 8, 1, 0],
            [-5, 4, 13, 14, 3, 9, -2, -9],
            [-12, -2, 9, 11, 11, 2, -5, -16],
            [-14, -17, -8, -5, 8, -12, -13, -26],
            [-22, -10, -26, -4, -8, -14, -5, -17],
        ],
        "rook": [
            [11, 8, 15, 13, 11, 14, 7, 8],
            [11, 11, 12, 11, -3, 4, 8, 3],
            [10, 8, 7, 3, 4, -1, -5, -2],
            [4, 6, 13, 2, 2, 0, 1, 1],
            [3, 5, 7, 4, -4, -5, -9, -10],
            [-2, 1, -3, -4, -8, -14, -7, -16],
            [-8, -4, 0, 0, -12, -8, -12, -3],
            [-8, -1, 3, 0, -5, -10, 5, -15],
        ],
        "queen": [
            [-9, 22, 22, 27, 27, 19, 10, 19],
            [-16, 21, 33, 42, 59, 25, 30, -1],
            [-20, 7, 9, 48, 47, 35, 18, 9],
            [3, 23, 24, 44, 57, 40, 56, 37],
            [-18, 28, 19, 46, 31, 33, 39, 23],
            [-16, -26, 15, 7, 8, 17, 10, 6],
            [-22, -23, -30, -16, -14, -24, -37, -32],
            [-33, -28, -22, -44, -5, -32, -20, -41],
        ],
        "king": [
            [-74, -34, -18, -18, -11, 15, 3, -18],
            [-12, 17, 14, 16, 18, 37, 24, 12],
            [10, 18, 22, 15, 21, 42, 39, 14],
            [-7, 21, 25, 27, 22, 30, 29, 4],
            [-18, -5, 19, 25, 26, 26, 8, -10],
            [-19, -1, 8, 22, 23, 16, 7, -9],
            [-24, -9, 4, 16, 14, 6, 3, -18],
            [-53, -35, -19, -10, -30, -14, -34, -44],
        ],
    },
    # Fruit 2.1: knight 4/4 per square around 4, bishop 5/5 around 6, rook 2/4 around 7,
    # queen 1/2 around 13.  Centring keeps the average piece worth its material value.
    "mobility_mg": {
        "knight": [-16, -10, -3, 0, 4, 3, 3, 7, 7],
        "bishop": [-33, -26, -17, -17, -7, -2, 1, 6, 4, 9, 16, 21, 30, 33],
        "rook": [-12, -9, -8, -5, -4, -1, -2, -3, 3, 5, 11, 8, 8, 10, 13],
        "queen": [-12, -7, -9, -11, -13, -9, -10, -7, -3, -3, -4, -2, 0, 0,
                  0, 1, 5, 5, 6, 8, 7, 9, 10, 10, 11, 12, 13, 14],
    },
    "mobility_eg": {
        "knight": [-16, -12, -9, -4, 6, 5, 10, 11, 10],
        "bishop": [-35, -26, -23, -14, -10, -1, 1, 9, 14, 17, 17, 25, 30, 31],
        "rook": [-28, -23, -21, -12, -10, -7, -2, -1, 8, 11, 14, 18, 23, 23, 11],
        "queen": [-26, -24, -22, -20, -19, -16, -14, -13, -10, -8, -6, -3, -1, 1,
                  4, 4, 8, 9, 11, 14, 14, 15, 18, 19, 21, 23, 26, 28],
    },
    # By the pawn's own rank, 1..8 (ranks 1 and 8 never hold a pawn).
    "passed_pawn_mg": [0, 0, 5, 7, 24, 27, 31, 0],
    "passed_pawn_eg": [0, 10, 18, 33, 48, 52, 51, 0],
    "isolated_pawn": (-10, -7),     # per pawn with no own pawn on a neighbouring file
    "doubled_pawn": (-13, -24),      # per extra pawn on a file
    "bishop_pair": (39, 47),         # bishops on both square colours
    "rook_open_file": (31, -4),      # no pawn on the rook's file
    "rook_semi_open_file": (14, 19),  # no own pawn, an enemy pawn on the rook's file
    # King safety, mg only.
    # Shield pawns count only for a king on the wings (files a-c, f-h): a king on d or e has not
    # castled, and its centre pawns should be free to advance.
    "king_shield_near": 7,          # per own pawn on the three files around the king, one rank ahead
    "king_shield_far": 9,            # the same, two ranks ahead
    "king_open_file": -16,           # no own pawn on the king's file
    # Units per square of the enemy king's zone (king square and its neighbours) a piece attacks.
    "king_attack_units": {"knight": 2, "bishop": 2, "rook": 3, "queen": 5},
    "king_danger": [
        0, 0, 0, 1, 2, 5, 1, 6, 6, 9,
        11, 12, 14, 15, 17, 20, 23, 26, 29, 32,
        34, 37, 42, 42, 45, 48, 52, 56, 61, 65,
        70, 75, 84, 90, 95, 101, 106, 112, 118, 124,
        130, 136, 141, 147, 153, 159, 165, 171, 177, 183,
        188, 194, 200, 206, 212, 218, 224, 229, 235, 241,
        247, 250,
    ],
    # For the side to move; small, so that odd and even search depths do not disagree much.
    "tempo": (7, 1),
    # Session 6 terms.  Starting values are conventional guesses; the tuner fits them.
    # Threats, per enemy piece (not pawn or king) attacked: by a pawn; a rook or queen by a knight
    # or bishop; a queen by a rook; and any piece we attack that none of theirs defends.
    "threat_by_pawn": (45, 30),
    "threat_by_minor": (25, 30),
    "threat_by_rook": (30, 15),
    "hanging_piece": (20, 15),
    # King safety, mg only: per square the piece type attacks that would check the enemy king
    # and that no enemy piece attacks.
    "safe_check": {"knight": 10, "bishop": 6, "rook": 10, "queen": 6},
    # Pawns: defended by an own pawn; with an own pawn beside it; backward (no own pawn can come
    # up to defend it and an enemy pawn guards its stop square).
    "pawn_supported": (7, 4),
    "pawn_phalanx": (5, 3),
    "backward_pawn": (-5, -5),
    # Passed pawns beyond their rank.  "Per step" values are multiplied by the pawn's rank beyond
    # the third (1 on the fourth rank .. 4 on the seventh).
    "passed_blocked": (-5, -10),        # something stands on its stop square
    "passed_supported": (5, 10),        # an own pawn defends it
    "passed_free_path": (0, 8),         # per step: nothing of theirs on or attacking its path
    "passed_king_distance": (0, 4),     # per step and per square the enemy king is further from its stop square
    "passed_unstoppable": (0, 300),     # pawn endings: outside the square of the enemy king
    # Pieces: knights and bishops on outposts (ranks 4-6, defended by a pawn, out of reach of enemy
    # pawns); rooks on the seventh with the enemy king or pawns on their first two ranks.
    "knight_outpost": (20, 10),
    "bishop_outpost": (10, 5),
    "rook_seventh": (10, 20),
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
