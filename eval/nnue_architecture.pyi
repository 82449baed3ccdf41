"""Type stub of the compiled module eval.nnue_architecture (see nnue_architecture.pyx)."""

from search.board.position import Position

INPUTS: int
MAX_ACTIVE: int
HIDDEN_MIN: int
HIDDEN_MAX: int
HIDDEN_STEP: int
QA_MAX: int
QB_MAX: int
SCALE_MAX: int
OUTPUT_BUCKETS_MAX: int
FEATURES_PLAIN: int
FEATURES_KING_MIRRORED: int
FEATURE_SETS: int

def feature_index(perspective: int, colour: int, piece_type: int, square: int) -> int: ...
def file_flip(feature_set: int, own_king_square: int) -> int: ...
def output_bucket(pieces: int, buckets: int) -> int: ...
def active_features(position: Position, feature_set: int = ...) -> tuple[list[int], list[int], int]: ...
