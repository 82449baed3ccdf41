"""The net's integer evaluation in plain Python, written from the spec in eval/nnue_file.py: the
ground truth the C inference is tested against.

Its features are found from python-chess's board with the formula of the spec, not with the
engine's code, so the tests compare two independent readings of one definition.  Slow.
"""

from __future__ import annotations

import chess

from eval.nnue_file import NetParameters


def reference_features(board: chess.Board, feature_set: int = 0) -> tuple[list[int], list[int]]:
    """The active inputs of White's and of Black's perspective: a piece of colour c, type t on
    square s is ``(0 if c == p else 384) + 64 t + (s if p == 0 else s ^ 56)`` for perspective p, its
    square's file mirrored (h for a, g for b ...) in feature set 1 when p's own king is on files e-h."""
    features: tuple[list[int], list[int]] = ([], [])
    mirrored = []
    for colour in (chess.WHITE, chess.BLACK):
        king = board.king(colour)
        mirrored.append(feature_set == 1 and king is not None and chess.square_file(king) >= 4)
    for square, piece in board.piece_map().items():
        colour = 0 if piece.color == chess.WHITE else 1
        for perspective in (0, 1):
            seen = chess.square_mirror(square) if perspective == 1 else square
            if mirrored[perspective]:
                seen = chess.square(7 - chess.square_file(seen), chess.square_rank(seen))
            features[perspective].append((0 if colour == perspective else 384) + 64 * (piece.piece_type - 1) + seen)
    return features


def _wrap_int16(value: int) -> int:
    return (value + 0x8000) % 0x10000 - 0x8000


def div_toward_zero(numerator: int, denominator: int) -> int:
    """Integer division truncated toward zero, as C's ``/`` (not Python's ``//``, which floors)."""
    quotient = abs(numerator) // abs(denominator)
    return quotient if (numerator < 0) == (denominator < 0) else -quotient


def reference_accumulators(params: NetParameters, board: chess.Board) -> list[list[int]]:
    """White's and Black's int16 accumulators: the bias plus the rows of the active inputs, wrapping as
    int16_t arithmetic does."""
    hidden = params.hidden
    result = []
    for features in reference_features(board, params.feature_set):
        sums = list(params.feature_bias)
        for feature in features:
            row = params.feature_weights[feature * hidden:(feature + 1) * hidden]
            sums = [a + w for a, w in zip(sums, row, strict=True)]
        result.append([_wrap_int16(value) for value in sums])
    return result


def reference_bucket(pieces: int, buckets: int) -> int:
    """The spec's output bucket: pieces 2..32 in `buckets` equal runs, ``(pieces - 2) * buckets // 31``."""
    return min(buckets - 1, max(0, (pieces - 2) * buckets // 31))


def evaluate_reference(params: NetParameters, position: chess.Board | str) -> int:
    """The net's score in centipawns, side to move's view, of a board or a FEN: the spec's integer
    inference exactly (the engine then clamps it to its evaluation limit)."""
    board = chess.Board(position) if isinstance(position, str) else position
    accumulators = reference_accumulators(params, board)
    stm = 0 if board.turn == chess.WHITE else 1
    hidden, qa = params.hidden, params.qa
    bucket = reference_bucket(len(board.piece_map()), params.buckets)
    weights = params.output_weights[bucket * 2 * hidden:(bucket + 1) * 2 * hidden]
    total = 0
    for half, acc in enumerate((accumulators[stm], accumulators[1 - stm])):
        out = weights[half * hidden:(half + 1) * hidden]
        for value, weight in zip(acc, out, strict=True):
            v = min(max(value, 0), qa)
            total += v * v * weight
    raw = div_toward_zero(total, qa) + params.output_biases[bucket]
    return div_toward_zero(raw * params.scale, qa * params.qb)


def changes_wing(board: chess.Board, move: chess.Move) -> bool:
    """Whether `move` takes a king between files a-d and e-h (a step between d and e, castling to
    the other wing)."""
    if board.piece_type_at(move.from_square) != chess.KING:
        return False
    if board.is_castling(move):          # python-chess writes castling as king-takes-rook in Chess960
        rook_file = chess.square_file(move.to_square)
        to_file = 2 if rook_file < chess.square_file(move.from_square) else 6
    else:
        to_file = chess.square_file(move.to_square)
    return (chess.square_file(move.from_square) >= 4) != (to_file >= 4)
