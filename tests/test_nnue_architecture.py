"""The net's architecture (eval/nnue_architecture.pxd) has one definition: the engine's `Network`, the
file format and the trainer's kernels all accept exactly the nets it describes, and its inputs are
the ones the spec (eval/nnue_file.py) writes down."""

from __future__ import annotations

from array import array
from typing import Any

import chess
import numpy as np
import pytest
from nnue_reference import reference_features
from random_play import random_boards

from eval import nnue_architecture as arch
from eval.nnue import Network
from eval.nnue_file import QA, QB, SCALE, check_hidden
from search.board.position import Position
from tools import nnue_kernels
from tools.nnue_data import RECORD_SIZE, pack


def network_arguments(hidden: int, qa: int = QA, qb: int = QB, scale: int = SCALE) -> dict[str, Any]:
    return {"hidden": hidden, "qa": qa, "qb": qb, "scale": scale,
            "feature_weights": array("h", bytes(2 * arch.INPUTS * hidden)),
            "feature_bias": array("h", bytes(2 * hidden)), "output_weights": array("h", bytes(4 * hidden)),
            "output_biases": (0,)}


@pytest.mark.parametrize("hidden", [arch.HIDDEN_MIN - arch.HIDDEN_STEP, arch.HIDDEN_MIN, arch.HIDDEN_MIN + 1,
                                    arch.HIDDEN_MAX - arch.HIDDEN_STEP, arch.HIDDEN_MAX,
                                    arch.HIDDEN_MAX + arch.HIDDEN_STEP])
def test_the_engine_and_the_file_format_accept_the_same_widths(hidden: int) -> None:
    accepted = arch.HIDDEN_MIN <= hidden <= arch.HIDDEN_MAX and hidden % arch.HIDDEN_STEP == 0
    try:
        check_hidden(hidden)
        file_accepts = True
    except ValueError:
        file_accepts = False
    try:
        Network(**network_arguments(hidden))
        engine_accepts = True
    except ValueError:
        engine_accepts = False
    assert file_accepts == engine_accepts == accepted


@pytest.mark.parametrize("name, largest", [("qa", arch.QA_MAX), ("qb", arch.QB_MAX), ("scale", arch.SCALE_MAX)])
def test_the_engine_accepts_the_constants_up_to_the_architectures_bounds(name: str, largest: int) -> None:
    assert getattr(Network(**{**network_arguments(16), name: largest}), name) == largest
    with pytest.raises(ValueError, match=name):
        Network(**{**network_arguments(16), name: largest + 1})
    with pytest.raises(ValueError, match=name):
        Network(**{**network_arguments(16), name: 0})


@pytest.mark.parametrize("feature_set", [arch.FEATURES_PLAIN, arch.FEATURES_KING_MIRRORED])
def test_a_positions_active_features_are_the_specs(feature_set: int) -> None:
    for board in random_boards(40, seed=5, max_plies=120):
        white, black, stm = arch.active_features(Position(board.fen()), feature_set)
        expected_white, expected_black = reference_features(board, feature_set)
        assert sorted(white) == sorted(expected_white) and sorted(black) == sorted(expected_black)
        assert stm == (0 if board.turn == chess.WHITE else 1)
        assert len(white) <= arch.MAX_ACTIVE and all(0 <= f < arch.INPUTS for f in white + black)


@pytest.mark.parametrize("feature_set", [arch.FEATURES_PLAIN, arch.FEATURES_KING_MIRRORED])
def test_the_trainers_kernels_decode_the_same_features(feature_set: int) -> None:
    boards = random_boards(30, seed=9, max_plies=120)
    records = np.frombuffer(b"".join(pack(board.fen(), 0, 1) for board in boards), dtype=np.uint8)
    records = records.reshape(len(boards), RECORD_SIZE)
    white = np.zeros((len(boards), arch.MAX_ACTIVE), dtype=np.int32)
    black = np.zeros_like(white)
    counts = np.zeros(len(boards), dtype=np.int32)
    stm = np.zeros(len(boards), dtype=np.int32)
    nnue_kernels.decode(records, white, black, counts, stm, feature_set)
    for i, board in enumerate(boards):
        engine_white, engine_black, engine_stm = arch.active_features(Position(board.fen()), feature_set)
        assert sorted(white[i, :counts[i]]) == sorted(engine_white)
        assert sorted(black[i, :counts[i]]) == sorted(engine_black)
        assert stm[i] == engine_stm


def test_the_feature_index_refuses_what_is_no_input() -> None:
    assert arch.feature_index(0, 0, 0, 0) == 0
    assert arch.feature_index(1, 0, 5, 63) == arch.INPUTS // 2 + 64 * 5 + 7
    for bad in ((2, 0, 0, 0), (0, 2, 0, 0), (0, 0, 6, 0), (0, 0, 0, 64), (0, 0, 0, -1)):
        with pytest.raises(ValueError, match="no input"):
            arch.feature_index(*bad)
