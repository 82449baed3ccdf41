"""The Texel tuner and its data: packing, the linear model, extraction, fitting, writing, resuming."""

from __future__ import annotations

import importlib.util
import io
import random
from pathlib import Path

import chess
import chess.pgn
import numpy as np
import pytest
from conftest import random_boards

from eval.api import evaluate
from eval.evaluate import load_vector, weights_as_vector
from eval.weights import WEIGHTS, to_vector, weight_names
from search.board.position import Position
from tools import texel
from tools.texel_kernels import PACKED_WORDS, pack_positions
from tools.tune_data import extract, quiet_positions, read_positions


def random_fens(count: int, seed: int = 7) -> list[str]:
    """Positions from random games (python-chess), of every phase."""
    boards = [board for board in random_boards(games=count // 40 + 2, seed=seed) if not board.is_game_over()]
    random.Random(seed).shuffle(boards)
    return [board.fen() for board in boards[:count]]


def packed(fens: list[str]) -> np.ndarray:
    out = np.zeros((len(fens), PACKED_WORDS), dtype=np.uint64)
    pack_positions([Position(fen) for fen in fens], out)
    return out


def white_eval(mg: np.ndarray, eg: np.ndarray, phase: np.ndarray, side: np.ndarray) -> np.ndarray:
    """The C evaluation's own arithmetic on the raw sums: truncating division, side to move."""
    tapered = mg.astype(np.int64) * phase + eg.astype(np.int64) * (24 - phase)
    score = np.sign(tapered) * (np.abs(tapered) // 24)
    return np.where(side == 0, score, -score)


def test_raw_sums_are_what_the_evaluation_adds_up() -> None:
    fens = random_fens(300)
    data = packed(fens)
    mg, eg, phase = texel.raw(data)
    expected = np.array([evaluate(Position(fen)) for fen in fens])
    assert np.array_equal(np.clip(white_eval(mg, eg, phase, data[:, 8]), -20000, 20000), expected)
    assert len(set(phase.tolist())) > 5        # the sample covers several phases


def test_the_linear_model_matches_the_evaluation_for_other_weights() -> None:
    fens = random_fens(300, seed=11)
    start = weights_as_vector()
    names = weight_names()
    columns = texel.tunable_indices(names)
    assert not any(names[i].startswith("king_attack_units") for i in columns)
    data = texel.Dataset(packed(fens), np.full(len(fens), 0.5), "test")
    matrix, offset = texel.coefficients(data, start, columns, names)
    assert weights_as_vector() == start                  # the loaded weights are restored
    rng = np.random.default_rng(3)
    other = list(start)
    for i in columns:
        other[i] += int(rng.integers(-20, 21))
    predicted = matrix @ np.asarray([other[i] for i in columns], dtype=np.float64) + offset
    try:
        load_vector(other)
        mg, eg, phase = texel.raw(data.packed)
    finally:
        load_vector(start)
    assert np.allclose(predicted, texel.tapered(mg, eg, phase), atol=1e-6)


PGN = """[Event "t"]
[Result "0-1"]

1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Bxc6 dxc6 5. O-O Bg4 6. h3 h5 7. hxg4 hxg4 8. Nxe5 Qh4 9. Nxg4 Qh2# 0-1

[Event "unfinished"]
[Result "*"]

1. d4 d5 2. c4 *
"""


def test_extraction_keeps_quiet_positions_with_white_results(tmp_path: Path) -> None:
    pgn = tmp_path / "games.pgn"
    pgn.write_text(PGN)
    out = tmp_path / "data.epd"
    games, written = extract([pgn], out, skip_plies=2)
    assert games == 1                                       # the unfinished game is skipped
    fens, results = read_positions(out)
    assert len(fens) == written and set(results) == {0.0}
    game = chess.pgn.read_game(io.StringIO(PGN))
    assert game is not None
    kept = list(quiet_positions(game, skip_plies=2))
    assert len(kept) == written
    board = game.board()
    for ply, move in enumerate(game.mainline_moves()):
        epd = board.epd()
        if ply < 2 or board.is_capture(move) or board.is_check():
            assert epd not in kept                          # book, before a capture, in check
        board.push(move)
    assert 0 < written < 18


def test_results_are_read_in_the_common_formats(tmp_path: Path) -> None:
    data = tmp_path / "mixed.epd"
    start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -"
    data.write_text(f'{start} c9 "1-0";\n{start} c9 "1/2-1/2";\n{start} [0.0]\n{start} c9 "0.25";\n')
    assert read_positions(data)[1] == [1.0, 0.5, 0.0, 0.25]
    data.write_text(f'{start} c9 "maybe";\n')
    with pytest.raises(ValueError, match="mixed.epd:1"):
        read_positions(data)


def synthetic(tmp_path: Path, change: dict[str, int], count: int = 3000) -> tuple[Path, list[int]]:
    """Positions labelled by the sigmoid of an evaluation with `change` applied to the weights."""
    fens = random_fens(count, seed=5)
    start = weights_as_vector()
    names = weight_names()
    target = list(start)
    for name, delta in change.items():
        target[names.index(name)] += delta
    try:
        load_vector(target)
        mg, eg, phase = texel.raw(packed(fens))
    finally:
        load_vector(start)
    labels = texel.sigmoid(texel.tapered(mg, eg, phase), 1.0)
    data = tmp_path / "synthetic.epd"
    lines = [f'{" ".join(fen.split()[:4])} c9 "{p:.6f}";\n' for fen, p in zip(fens, labels, strict=True)]
    data.write_text("".join(lines))
    return data, start


def test_the_tuner_moves_weights_towards_the_data(tmp_path: Path) -> None:
    data, start = synthetic(tmp_path, {"material.knight[0]": 150, "material.knight[1]": 150})
    out = tmp_path / "tuned.py"
    assert texel.main([str(data), "--out", str(out), "--epochs", "150", "--rate", "2", "--k", "1.0"]) == 0
    spec = importlib.util.spec_from_file_location("tuned", out)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    tuned = dict(zip(weight_names(), to_vector(module.WEIGHTS), strict=True))
    before = dict(zip(weight_names(), start, strict=True))
    gained = (tuned["material.knight[0]"] - before["material.knight[0]"]
              + tuned["material.knight[1]"] - before["material.knight[1]"])
    assert gained > 60, gained
    assert tuned["king_attack_units.queen"] == before["king_attack_units.queen"]   # fixed


def test_written_weights_keep_the_comments_and_read_back(tmp_path: Path) -> None:
    values = [v + 1 for v in to_vector(WEIGHTS)]
    source = texel.weights_source(values)
    assert "# per pawn with no own pawn on a neighbouring file" in source
    assert source.count("\n") == Path(texel.weight_table.__file__).read_text().count("\n")
    path = tmp_path / "weights_plus_one.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("plus_one", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert to_vector(module.WEIGHTS) == values
    with pytest.raises(ValueError):
        texel.weights_source(values[:-1])


def test_an_interrupted_run_resumes_where_it_stopped(tmp_path: Path) -> None:
    data, _ = synthetic(tmp_path, {"material.bishop[0]": 100}, count=600)
    straight, resumed = tmp_path / "straight.py", tmp_path / "resumed.py"
    checkpoint = tmp_path / "run.ckpt"
    assert texel.main([str(data), "--out", str(straight), "--epochs", "40", "--k", "1.0"]) == 0
    assert texel.main([str(data), "--out", str(tmp_path / "half.py"), "--epochs", "20", "--k", "1.0",
                       "--checkpoint", str(checkpoint)]) == 0
    assert checkpoint.is_file()
    assert texel.main([str(data), "--out", str(resumed), "--epochs", "40",
                       "--checkpoint", str(checkpoint), "--resume"]) == 0
    assert straight.read_text() == resumed.read_text()
    assert straight.read_text() != (tmp_path / "half.py").read_text()


def test_bad_input_is_refused_with_status_2(tmp_path: Path) -> None:
    assert texel.main([str(tmp_path / "missing.epd")]) == 2
    empty = tmp_path / "empty.epd"
    empty.write_text("")
    assert texel.main([str(empty)]) == 2
    assert texel.main([str(empty), "--resume"]) == 2
