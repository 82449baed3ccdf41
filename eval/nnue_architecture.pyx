"""The Python face of the net's architecture (eval/nnue_architecture.pxd): its sizes, its bounds,
its feature sets, the active inputs of a position and its output bucket.

The values come from the header the engine and the trainer's kernels compile against, so the file
format (eval/nnue_file.py), the trainer and the tests read the one definition, not a copy.
"""

from libc.stdint cimport uint64_t
from search.board.bitboard cimport pop_lsb
from search.board.types cimport piece_type_of, colour_of
from search.board.board cimport king_square
from search.board.position cimport Position

from typing import List, Tuple

INPUTS: int = NNUE_INPUTS
MAX_ACTIVE: int = NNUE_MAX_ACTIVE
HIDDEN_MIN: int = NNUE_MIN_HIDDEN
HIDDEN_MAX: int = NNUE_MAX_HIDDEN
HIDDEN_STEP: int = NNUE_HIDDEN_STEP
QA_MAX: int = NNUE_MAX_QA
QB_MAX: int = NNUE_MAX_QB
SCALE_MAX: int = NNUE_MAX_SCALE
OUTPUT_BUCKETS_MAX: int = NNUE_MAX_OUTPUT_BUCKETS
FEATURES_PLAIN: int = NNUE_FEATURES_PLAIN
FEATURES_KING_MIRRORED: int = NNUE_FEATURES_KING_MIRRORED
FEATURE_SETS: int = NNUE_FEATURE_SETS


def file_flip(int feature_set, int own_king_square) -> int:
    """What a perspective XORs into its inputs (0, or 7 to mirror the files) in a net of
    `feature_set` when its own king stands on `own_king_square`."""
    if not (0 <= feature_set < NNUE_FEATURE_SETS and 0 <= own_king_square <= 63):
        raise ValueError(f"no flip for feature set {feature_set}, king square {own_king_square}")
    return nnue_file_flip(feature_set, own_king_square)


def output_bucket(int pieces, int buckets) -> int:
    """The output bucket (0 .. buckets - 1) of a position with `pieces` pieces, kings included."""
    if not 1 <= buckets <= NNUE_MAX_OUTPUT_BUCKETS:
        raise ValueError(f"a net has 1..{NNUE_MAX_OUTPUT_BUCKETS} output buckets, not {buckets}")
    return nnue_output_bucket(pieces, buckets)


def feature_index(int perspective, int colour, int piece_type, int square) -> int:
    """The input that `perspective` (0 White, 1 Black) sees for a piece of `colour` and `piece_type`
    (pawn 0 .. king 5) on `square` (a1 0 .. h8 63)."""
    if not (0 <= perspective <= 1 and 0 <= colour <= 1 and 0 <= piece_type <= 5 and 0 <= square <= 63):
        raise ValueError(f"no input for perspective {perspective}, colour {colour}, piece type {piece_type}, "
                         f"square {square}")
    return nnue_feature_index(perspective, colour, piece_type, square)


def active_features(Position position not None, int feature_set=NNUE_FEATURES_PLAIN
                    ) -> Tuple[List[int], List[int], int]:
    """The active inputs of White's and of Black's perspective in `position` (by square, a1 first)
    for a net of `feature_set`, and the side to move (0 White, 1 Black)."""
    cdef uint64_t pieces = position.board.occupied
    cdef int square, piece, white_flip, black_flip
    if not 0 <= feature_set < NNUE_FEATURE_SETS:
        raise ValueError(f"feature_set must be 0..{NNUE_FEATURE_SETS - 1}, not {feature_set}")
    white_flip = nnue_file_flip(feature_set, king_square(position.board, 0))
    black_flip = nnue_file_flip(feature_set, king_square(position.board, 1))
    white: List[int] = []
    black: List[int] = []
    while pieces:
        square = pop_lsb(&pieces)
        piece = position.board.squares[square]
        white.append(nnue_feature_index(0, colour_of(piece), piece_type_of(piece), square) ^ white_flip)
        black.append(nnue_feature_index(1, colour_of(piece), piece_type_of(piece), square) ^ black_flip)
    return white, black, position.board.side_to_move
