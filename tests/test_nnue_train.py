"""The NNUE trainer (tools/nnue_train.py) and its Cython kernels (tools/nnue_kernels.pyx)."""

from __future__ import annotations

import json
import math
import re
import shlex
from pathlib import Path
from typing import Any

import chess
import numpy as np
import pytest
from net_files import labelled_records
from nnue_reference import evaluate_reference, reference_features

from eval.networks import BUILTIN_NET, builtin_path
from eval.nnue_architecture import QB_MAX, output_bucket
from eval.nnue_file import QA, QB, SCALE, WEIGHT_CLIP, read_net
from tools import nnue_kernels
from tools.nnue_data import RECORD_SIZE, pack, unpack
from tools.nnue_recipe import DEFAULT_RECIPE
from tools.nnue_train import (
    FloatNet,
    Records,
    dequantise,
    float_output,
    load_checkpoint,
    main,
    output_scale,
    quantise,
)

POSITIONS = 3000


@pytest.fixture(scope="module")
def data_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("nnue") / "random.kpos"
    path.write_bytes(labelled_records(POSITIONS, seed=3))
    return path


@pytest.fixture(scope="module")
def records(data_file: Path) -> Any:
    return np.ascontiguousarray(Records.load([data_file]).gather(np.arange(POSITIONS)))


def random_net(hidden: int, seed: int, dtype: Any = np.float32, buckets: int = 1, feature_set: int = 0) -> FloatNet:
    rng = np.random.default_rng(seed)
    return FloatNet(W=rng.normal(0.0, 0.15, (768, hidden)).astype(dtype),
                    bias=rng.uniform(0.0, 0.6, hidden).astype(dtype),
                    w_out=rng.normal(0.0, 0.5, buckets * 2 * hidden).astype(dtype),
                    b_out=(0.1 + rng.normal(0.0, 0.05, buckets)).astype(dtype), feature_set=feature_set)


def sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def run_trainer(*argv: str, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(list(argv)) == 0
    return capsys.readouterr().out


def val_losses(output: str) -> list[float]:
    return [float(value) for value in re.findall(r"val loss (\d+\.\d+)", output)]


@pytest.mark.parametrize("feature_set", [0, 1])
def test_decode_gives_the_features_of_the_fen(records: Any, feature_set: int) -> None:
    n = 200
    white = np.zeros((n, 32), dtype=np.int32)
    black = np.zeros((n, 32), dtype=np.int32)
    counts = np.zeros(n, dtype=np.int32)
    stm = np.zeros(n, dtype=np.int32)
    nnue_kernels.decode(records[:n], white, black, counts, stm, feature_set)
    mirrored = 0
    for i in range(n):
        board = chess.Board(unpack(records[i].tobytes()).fen)
        expected_white, expected_black = reference_features(board, feature_set)
        mirrored += expected_white != reference_features(board)[0]
        assert sorted(white[i, :counts[i]]) == sorted(expected_white)
        assert sorted(black[i, :counts[i]]) == sorted(expected_black)
        assert stm[i] == (0 if board.turn == chess.WHITE else 1)
    assert set(stm[:n]) == {0, 1}
    assert (mirrored > n // 4) == (feature_set == 1)     # most White kings stand on files e-h
    with pytest.raises(ValueError, match="feature_set"):
        nnue_kernels.decode(records[:n], white, black, counts, stm, 2)


def test_a_bad_piece_code_is_refused() -> None:
    record = bytearray(pack("4k3/8/8/8/8/8/8/4K3 w - - 0 1", 0, 1))
    record[8] = 0xEE                                      # code 14: no such piece
    out = np.zeros(1, dtype=np.float32)
    net = random_net(16, 1)
    with pytest.raises(ValueError, match="bad piece code"):
        nnue_kernels.forward(np.frombuffer(bytes(record), dtype=np.uint8).reshape(1, RECORD_SIZE), net.W, net.bias,
                             net.w_out, net.b_out, 0.75, 1 / 400, out, out.copy())


@pytest.mark.parametrize(("buckets", "feature_set"), [(1, 0), (8, 0), (1, 1)])
def test_the_sparse_forward_equals_a_dense_numpy_forward(records: Any, buckets: int, feature_set: int) -> None:
    net = random_net(32, 2, buckets=buckets, feature_set=feature_set)
    n = 256
    out = np.zeros(n, dtype=np.float32)
    target = np.zeros(n, dtype=np.float32)
    nnue_kernels.forward(records[:n], net.W, net.bias, net.w_out, net.b_out, 0.75, 1 / 400, out, target,
                         feature_set)
    # The dense forward: one-hot inputs times W, over the FEN that the record decodes to.
    for i in range(n):
        record = unpack(records[i].tobytes())
        assert out[i] == pytest.approx(float_output(net, record.fen), rel=1e-5, abs=1e-5)
        expected = 0.75 * sigmoid(record.score / 400) + 0.25 * record.result / 2
        assert target[i] == pytest.approx(expected, rel=1e-6)
    assert np.std(out) > 0.1                  # the outputs differ: the comparison above says something


def loss_and_gradient(net: FloatNet, batch: Any) -> tuple[float, dict[str, Any]]:
    grads = {name: np.zeros_like(value) for name, value in net.arrays().items()}
    loss = nnue_kernels.train_batch(batch, net.W, net.bias, net.w_out, net.b_out, 0.75, 1 / 400, 1.0,
                                    grads["W"], grads["bias"], grads["w_out"], grads["b_out"], net.feature_set)
    return loss, grads


@pytest.mark.parametrize(("buckets", "feature_set"), [(1, 0), (8, 0), (1, 1)])
def test_the_backward_pass_matches_finite_differences(records: Any, buckets: int, feature_set: int) -> None:
    """Central differences in float64 on a tiny net, for parameters of every kind (active rows of W included),
    over 150 positions: more than one of the kernel's 64-position chunks, the last one partial.  With
    output buckets, every bucket's bias and weights of the buckets in use; a bucket no position uses
    gets no gradient."""
    n = 150
    net = random_net(16, 4, dtype=np.float64, buckets=buckets, feature_set=feature_set)
    batch = records[:n]
    _, grads = loss_and_gradient(net, batch)
    white = np.zeros((n, 32), dtype=np.int32)
    black = np.zeros((n, 32), dtype=np.int32)
    counts = np.zeros(n, dtype=np.int32)
    stm = np.zeros(n, dtype=np.int32)
    nnue_kernels.decode(batch, white, black, counts, stm, feature_set)
    used = sorted({output_bucket(int(count), buckets) for count in counts})
    assert buckets == 1 or len(used) >= 3                 # the positions spread over several buckets
    rng = np.random.default_rng(0)
    probes: list[tuple[str, tuple[int, ...]]] = [("b_out", (k,)) for k in range(buckets)]
    probes += [("bias", (int(j),)) for j in rng.choice(16, 5, replace=False)]
    probes += [("w_out", (32 * k + int(j),)) for k in used for j in rng.choice(32, 6 if buckets == 1 else 2,
                                                                                 replace=False)]
    probes += [("W", (int(white[i, k]), int(rng.integers(16)))) for i, k in ((0, 0), (1, 3), (70, 5), (149, 1))]
    probes += [("W", (int(black[i, k]), int(rng.integers(16)))) for i, k in ((3, 2), (130, 0))]
    eps = 1e-6
    checked = 0
    for name, index in probes:
        param = getattr(net, name)
        saved = param[index]
        param[index] = saved + eps
        plus, _ = loss_and_gradient(net, batch)
        param[index] = saved - eps
        minus, _ = loss_and_gradient(net, batch)
        param[index] = saved
        numeric = (plus - minus) / (2 * eps)
        assert grads[name][index] == pytest.approx(numeric, rel=1e-5, abs=1e-8), (name, index)
        checked += abs(numeric) > 1e-5
    assert checked >= len(probes) - (buckets - len(used)) - 3   # most probes have a real gradient to compare
    for k in set(range(buckets)) - set(used):
        assert grads["b_out"][k] == 0 and not grads["w_out"][32 * k:32 * (k + 1)].any()
    # A row no position uses gets nothing.
    active = {int(f) for i in range(n) for f in (*white[i, :counts[i]], *black[i, :counts[i]])}
    inactive = sorted(set(range(768)) - active)
    assert inactive and not grads["W"][inactive].any()


@pytest.mark.parametrize("buckets", [1, 8])
def test_threads_split_the_batch_without_changing_the_gradient(records: Any, buckets: int) -> None:
    from tools.nnue_train import Trainer
    results = []
    for threads in (1, 3):
        trainer = Trainer(random_net(32, 5, buckets=buckets), threads, 0.75, 400, 0.0)
        loss, grads = trainer.gradient(records[:999])
        results.append((loss, {name: value.copy() for name, value in grads.items()}))
        trainer.close()
    assert results[0][0] == pytest.approx(results[1][0], rel=1e-9)
    for name in ("W", "bias", "w_out", "b_out"):
        np.testing.assert_allclose(results[0][1][name], results[1][1][name], rtol=1e-4, atol=1e-7)


def test_training_lowers_the_validation_loss_and_writes_a_net(data_file: Path, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "net.nnue"
    output = run_trainer(str(data_file), "--hidden", "32", "--epochs", "6", "--batch", "256", "--lr", "0.005",
                         "--warmup-steps", "10", "--val-fraction", "0.2", "--threads", "2", "--out", str(out),
                         capsys=capsys)
    losses = val_losses(output)
    assert len(losses) == 6
    assert losses[-1] < 0.8 * losses[0], output
    assert re.search(r"epoch 6/6 .* pos/s", output)
    net = read_net(out)
    assert net.hidden == 32 and "--epochs 6" in net.description and str(data_file) in net.description
    assert (tmp_path / "net.nnue.checkpoints" / "epoch-0006.npz").is_file()


def test_resume_gives_the_weights_of_an_uninterrupted_run(data_file: Path, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    common = ["--hidden", "16", "--epochs", "3", "--batch", "512", "--warmup-steps", "5", "--threads", "2"]
    run_trainer(str(data_file), *common, "--out", str(tmp_path / "a.nnue"), capsys=capsys)
    resumed = run_trainer(str(data_file), *common, "--out", str(tmp_path / "b.nnue"),
                          "--resume", str(tmp_path / "a.nnue.checkpoints" / "epoch-0001.npz"), capsys=capsys)
    assert "epoch 1/3" not in resumed and "epoch 2/3" in resumed
    whole = load_checkpoint(tmp_path / "a.nnue.checkpoints" / "epoch-0003.npz")
    again = load_checkpoint(tmp_path / "b.nnue.checkpoints" / "epoch-0003.npz")
    for name in ("W", "bias", "w_out", "b_out"):
        np.testing.assert_array_equal(getattr(whole[0], name), getattr(again[0], name))
    np.testing.assert_array_equal(whole[1]["W"], again[1]["W"])      # Adam's moments too
    assert whole[3] == again[3] and whole[4] == again[4] == 3
    first = load_checkpoint(tmp_path / "a.nnue.checkpoints" / "epoch-0001.npz")
    assert not np.array_equal(first[0].W, whole[0].W)                 # the resumed epochs did change it


def test_the_quantised_net_matches_the_float_model(data_file: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """Two tolerances.  The integer inference against the float model on the quantised (then dequantised)
    weights: within 1.05 cp, which only the two truncating divisions may cost (< 1 cp and < 400 / 16320 cp).
    Against the trained float weights the format's rounding adds more, mostly through the output weights'
    steps of 1/QB.  The trainer's chosen QB must do better there than the old fixed QB = 64."""
    run_trainer(str(data_file), "--hidden", "32", "--epochs", "6", "--batch", "256", "--lr", "0.005",
                "--warmup-steps", "10", "--threads", "2", "--out", str(tmp_path / "q.nnue"), capsys=capsys)
    net = load_checkpoint(tmp_path / "q.nnue.checkpoints" / "epoch-0006.npz")[0]
    quantised = quantise(net)
    assert quantised.qb > QB                      # this net's output weights are well inside the clip
    fixed = quantise(net, qb=QB)
    data = data_file.read_bytes()
    fens = [unpack(data[i:i + RECORD_SIZE]).fen for i in range(0, len(data), RECORD_SIZE * 15)]
    exact, trained, trained_fixed, scores = [], [], [], []
    for fen in fens:
        score = evaluate_reference(quantised, fen)
        exact.append(abs(score - float_output(dequantise(quantised), fen) * SCALE))
        trained.append(abs(score - float_output(net, fen) * SCALE))
        trained_fixed.append(abs(evaluate_reference(fixed, fen) - float_output(net, fen) * SCALE))
        scores.append(score)
    assert max(exact) <= 1.05
    assert np.mean(trained) < np.mean(trained_fixed)
    assert np.mean(trained) <= 3 and max(trained) <= 12
    assert np.mean(np.abs(scores)) > 50            # a net that says something, not a constant near 0


def assert_plays_as_spec_and_float_model(path: Path, float_net: FloatNet, data_file: Path) -> Any:
    """The engine's C inference on the net written to `path` equals the spec's on every 30th position of
    `data_file`, and stays near the float model it was quantised from; returns the loaded network."""
    from eval.networks import load_network
    from eval.nnue_api import nnue_evaluate
    from search.board.position import Position
    network, params = load_network(path)
    data = data_file.read_bytes()
    errors = []
    for i in range(0, len(data), RECORD_SIZE * 30):
        fen = unpack(data[i:i + RECORD_SIZE]).fen
        score = nnue_evaluate(network, Position(fen))
        assert score == evaluate_reference(params, fen), fen
        errors.append(abs(score - float_output(float_net, fen) * SCALE))
    assert np.mean(errors) <= 3 and max(errors) <= 12
    return network


def test_a_net_with_output_buckets_trains_and_plays_as_its_float_model(data_file: Path, tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """--output-buckets 8: a version-2 file whose buckets learnt apart; the engine's C inference equals
    the spec's on it and stays near the float model; a resume with another bucket count is refused."""
    out = tmp_path / "b.nnue"
    output = run_trainer(str(data_file), "--hidden", "32", "--no-king-mirror", "--output-buckets", "8", "--epochs", "4",
                         "--batch", "256", "--lr", "0.005", "--warmup-steps", "10", "--val-fraction", "0.2",
                         "--threads", "2", "--out", str(out), capsys=capsys)
    assert "8 output buckets" in output
    losses = val_losses(output)
    assert losses[-1] < 0.9 * losses[0], output
    assert out.read_bytes()[4] == 2                                     # version 2
    params = read_net(out)
    float_net = load_checkpoint(tmp_path / "b.nnue.checkpoints" / "epoch-0004.npz")[0]
    assert params.buckets == float_net.buckets == 8
    layers = np.array(params.output_weights).reshape(8, -1)
    assert len({layer.tobytes() for layer in layers}) > 4               # the buckets in use learnt apart
    assert_plays_as_spec_and_float_model(out, float_net, data_file)
    assert main([str(data_file), "--output-buckets", "4", "--epochs", "5", "--out", str(tmp_path / "c.nnue"),
                 "--resume", str(tmp_path / "b.nnue.checkpoints" / "epoch-0004.npz")]) == 2
    assert "differs from the checkpoint's 8" in capsys.readouterr().err


def test_a_king_mirrored_net_trains_and_plays_as_its_float_model(data_file: Path, tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """--king-mirror: a version-3 file; the engine's C inference equals the spec's on it and stays
    near the float model; its checkpoint resumes mirrored; a plain net cannot start a mirrored run."""
    out = tmp_path / "m.nnue"
    output = run_trainer(str(data_file), "--hidden", "32", "--king-mirror", "--epochs", "3", "--batch", "256",
                         "--lr", "0.005", "--warmup-steps", "10", "--val-fraction", "0.2", "--threads", "2",
                         "--out", str(out), capsys=capsys)
    assert "king-mirrored inputs" in output
    losses = val_losses(output)
    assert losses[-1] < 0.9 * losses[0], output
    assert out.read_bytes()[4] == 3                                     # version 3
    params = read_net(out)
    checkpoint = tmp_path / "m.nnue.checkpoints" / "epoch-0003.npz"
    float_net = load_checkpoint(checkpoint)[0]
    assert params.feature_set == float_net.feature_set == 1
    assert assert_plays_as_spec_and_float_model(out, float_net, data_file).feature_set == 1
    resumed = tmp_path / "r.nnue"
    run_trainer(str(data_file), "--epochs", "4", "--batch", "256", "--val-fraction", "0.2", "--resume", str(checkpoint),
                "--out", str(resumed), capsys=capsys)
    assert read_net(resumed).feature_set == 1
    plain = tmp_path / "plain.nnue"
    run_trainer(str(data_file), "--hidden", "32", "--no-king-mirror", "--epochs", "0", "--out", str(plain),
                capsys=capsys)
    assert main([str(data_file), "--init", str(plain), "--king-mirror", "--out", str(tmp_path / "x.nnue")]) == 2
    assert "needs a king-mirrored net" in capsys.readouterr().err


def start_net(tmp_path: Path, data_file: Path, seed: int) -> tuple[Path, Any, list[str]]:
    """A random 32-unit net written to a file for --init, its parameters, and positions of the data."""
    from net_files import net_parameters, random_parameters

    from eval.nnue_file import write_net
    start = tmp_path / "start.nnue"
    params = net_parameters(random_parameters(hidden=32, seed=seed))
    write_net(start, params)
    data = data_file.read_bytes()
    return start, params, [unpack(data[i:i + RECORD_SIZE]).fen for i in range(0, len(data), RECORD_SIZE * 40)]


def test_init_starts_from_a_net_file_and_copies_its_layer_to_each_bucket(data_file: Path, tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """--init NET with no epoch to train writes a net that scores as NET does (within the rounding of a
    new QB), with one output bucket or with its layer copied to 8; training on from there changes it."""
    start, params, fens = start_net(tmp_path, data_file, seed=8)
    for buckets in ("1", "8"):
        out = tmp_path / f"init{buckets}.nnue"
        run_trainer(str(data_file), "--init", str(start), "--output-buckets", buckets, "--epochs", "0",
                    "--out", str(out), capsys=capsys)
        copy = read_net(out)
        assert copy.buckets == int(buckets) and copy.feature_weights == params.feature_weights
        for fen in fens:
            assert abs(evaluate_reference(copy, fen) - evaluate_reference(params, fen)) <= 1, fen
    trained = tmp_path / "trained.nnue"
    run_trainer(str(data_file), "--init", str(start), "--epochs", "1", "--batch", "512", "--warmup-steps", "0",
                "--lr", "0.01", "--out", str(trained), capsys=capsys)
    assert read_net(trained).feature_weights != params.feature_weights
    assert main([str(data_file), "--init", str(start), "--resume", str(start), "--out", str(tmp_path / "x.nnue")]) == 2
    assert "give one of them" in capsys.readouterr().err
    assert main([str(data_file), "--init", str(tmp_path / "init8.nnue"), "--output-buckets", "4",
                 "--out", str(tmp_path / "y.nnue")]) == 2
    assert "cannot start a net of 4" in capsys.readouterr().err


def test_init_with_more_hidden_units_widens_the_net_into_the_same_function(data_file: Path, tmp_path: Path,
                                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """--init NET --hidden H (H wider than NET) writes, before any epoch, a net of H units that scores
    as NET does, one bucket or eight; its new units start with zero output weights and training gives
    them some; a narrower --hidden is refused."""
    start, params, fens = start_net(tmp_path, data_file, seed=9)
    for buckets in ("1", "8"):
        out = tmp_path / f"wide{buckets}.nnue"
        run_trainer(str(data_file), "--init", str(start), "--hidden", "64", "--output-buckets", buckets,
                    "--epochs", "0", "--out", str(out), capsys=capsys)
        wide = read_net(out)
        assert (wide.hidden, wide.buckets) == (64, int(buckets))
        assert any(any(wide.feature_weights[i * 64 + 32:i * 64 + 64]) for i in range(768))   # new units drawn
        for fen in fens:
            assert abs(evaluate_reference(wide, fen) - evaluate_reference(params, fen)) <= 1, fen
    trained = tmp_path / "wide-trained.nnue"
    run_trainer(str(data_file), "--init", str(start), "--hidden", "64", "--epochs", "1", "--batch", "512",
                "--warmup-steps", "0", "--lr", "0.01", "--out", str(trained), capsys=capsys)
    new_units = dequantise(read_net(trained)).w_out.reshape(2, 64)[:, 32:]
    assert np.abs(new_units).max() > 0
    assert main([str(data_file), "--init", str(start), "--hidden", "16", "--out", str(tmp_path / "x.nnue")]) == 2
    assert "narrower than" in capsys.readouterr().err


def test_the_output_scale_is_the_finest_that_keeps_16_bit_products() -> None:
    """QA * |w_q| <= 32767 for every output weight (the engine's fast path), and QB + 1 would break it."""
    assert output_scale(np.array([WEIGHT_CLIP, -0.3])) == QB          # weights at the clip: the old 64
    rng = np.random.default_rng(5)
    for largest in (0.05, 0.39, 0.54, 1.06, 1.7):
        w_out = rng.uniform(-largest, largest, 256)
        w_out[17] = -largest
        qb = output_scale(w_out)
        assert QA * np.abs(np.rint(w_out * qb)).max() <= 32767
        assert QA * np.abs(np.rint(w_out * (qb + 1))).max() > 32767
    assert output_scale(np.zeros(32)) == QB_MAX


def test_game_files_train_like_their_merged_records(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A .kgame file is read directly: the same net as from the .kpos file the merge makes of it."""
    from tools import datagen
    games = tmp_path / "games"
    fast = datagen.Settings(soft_nodes=300, hard_nodes=3000, hash_mb=1, random_plies=6, max_plies=120, weighted=True)
    datagen.generate(str(games), 400, fast, seed=9, workers=1, progress_every=0)
    [shard] = games.glob("*.kgame")
    merged = tmp_path / "merged.kpos"
    assert datagen.main(["merge", str(shard), "-o", str(merged), "--min-ply", "4"]) == 0
    nets = []
    for source in (shard, merged):
        out = tmp_path / f"{source.suffix[1:]}.nnue"
        run_trainer(str(source), "--min-ply", "4", "--hidden", "32", "--epochs", "2", "--batch", "64",
                    "--val-fraction", "0.2", "--threads", "1", "--out", str(out), capsys=capsys)
        net = read_net(out)
        nets.append((net.feature_weights, net.output_weights))
    assert len(Records.load([merged])) > 100
    assert nets[0][0] == nets[1][0] and nets[0][1] == nets[1][1]


def test_the_comparison_scores_a_checkpoints_float_model_beside_its_net(
        data_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`tools.nnue_compare` takes a trainer checkpoint for its float model: the values are the float
    model's own, and its row sits beside the quantised net's, which the rounding moves only a little."""
    from search.board.position import Position
    from tools import nnue_compare
    run_trainer(str(data_file), "--hidden", "16", "--epochs", "2", "--batch", "512", "--warmup-steps", "5",
                "--threads", "2", "--out", str(tmp_path / "c.nnue"), capsys=capsys)
    checkpoint = tmp_path / "c.nnue.checkpoints" / "epoch-0002.npz"
    net = load_checkpoint(checkpoint)[0]
    data = data_file.read_bytes()
    fen = unpack(data[:RECORD_SIZE]).fen
    assert nnue_compare.float_model(str(checkpoint))(Position(fen)) == float_output(net, fen) * SCALE
    assert nnue_compare.main([str(data_file), str(tmp_path / "c.nnue"), str(checkpoint), "--every", "5"]) == 0
    rows = {line.split()[0]: [float(x) for x in line.split()[1:]] for line in capsys.readouterr().out.splitlines()[3:]}
    assert set(rows) == {"weighted", str(tmp_path / "c.nnue"), str(checkpoint)}
    quantised, float_model = rows[str(tmp_path / "c.nnue")], rows[str(checkpoint)]
    assert float_model != quantised and float_model[1] == pytest.approx(quantised[1], rel=0.05)    # the loss
    run_trainer(str(data_file), "--hidden", "16", "--epochs", "1", "--batch", "512", "--scale", "250", "--threads", "1",
                "--out", str(tmp_path / "s.nnue"), capsys=capsys)
    scaled = tmp_path / "s.nnue.checkpoints" / "epoch-0001.npz"     # its float model is read at its own scale
    assert nnue_compare.float_model(str(scaled))(Position(fen)) == float_output(load_checkpoint(scaled)[0], fen) * 250
    not_a_checkpoint = tmp_path / "bad.npz"
    not_a_checkpoint.write_bytes(b"not a zip file")
    assert nnue_compare.main([str(data_file), str(not_a_checkpoint)]) == 2
    assert "not a checkpoint of this trainer" in capsys.readouterr().err


def recipe_settings(path: Path) -> dict[str, Any]:
    settings = json.loads(path.read_text())["settings"]
    assert isinstance(settings, dict)
    return settings


def test_the_shipped_nets_recipe_trains_a_few_steps(data_file: Path, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """With no setting on the command line but the epochs, the trainer follows the shipped net's recipe:
    the net has its shape and scale, and its description and checkpoint name the recipe."""
    settings = recipe_settings(DEFAULT_RECIPE)
    assert DEFAULT_RECIPE.stem == Path(BUILTIN_NET).stem
    data = tmp_path / "six-copies.kpos"
    data.write_bytes(data_file.read_bytes() * 6)        # three of the recipe's batches: a few steps
    out = tmp_path / "recipe.nnue"
    output = run_trainer(str(data), "--epochs", "1", "--threads", "2", "--out", str(out), capsys=capsys)
    assert f"recipe {DEFAULT_RECIPE.stem}" in output
    steps = math.ceil(round(6 * POSITIONS * (1 - settings["val-fraction"])) / settings["batch"])
    assert steps == 3 and f"batch {settings['batch']}, {steps} steps per epoch" in output
    net = read_net(out)
    assert net.description.startswith(f"recipe: {DEFAULT_RECIPE.stem} | ")
    assert (net.hidden, net.buckets, net.scale) == (settings["hidden"], settings["output-buckets"], settings["scale"])
    assert net.feature_set == int(settings["king-mirror"])
    start = FloatNet.initial(settings["hidden"], np.random.default_rng([settings["seed"], 0]), feature_set=1)
    trained = load_checkpoint(tmp_path / "recipe.nnue.checkpoints" / "epoch-0001.npz")
    assert trained[3] == steps and not np.array_equal(trained[0].W, start.W)
    assert trained[5]["recipe"] == DEFAULT_RECIPE.stem


def test_the_recipe_is_what_made_the_shipped_net() -> None:
    """Every flag in the shipped net's description has the recipe's value, and the net's header its shape."""
    shipped = read_net(builtin_path())
    settings = recipe_settings(DEFAULT_RECIPE)
    words = shlex.split(shipped.description.split(" | ")[0])
    flags = {word[2:]: index for index, word in enumerate(words) if word.startswith("--")}
    in_recipe = [name for name in flags if name in settings]
    assert {"hidden", "lambda", "weight-decay", "lr", "epochs", "batch", "king-mirror"} <= set(in_recipe)
    for name in in_recipe:
        value = True if name == "king-mirror" else type(settings[name])(words[flags[name] + 1])
        assert value == settings[name], name
    assert (shipped.hidden, shipped.buckets, shipped.scale, shipped.feature_set) == \
        (settings["hidden"], settings["output-buckets"], settings["scale"], int(settings["king-mirror"]))


def test_a_flag_overrides_one_setting_of_a_recipe_and_a_bad_recipe_is_refused(
        data_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    settings = recipe_settings(DEFAULT_RECIPE)
    mine = tmp_path / "mine.json"
    mine.write_text(json.dumps({"settings": {**settings, "hidden": 16, "king-mirror": False}}))
    out = tmp_path / "mine.nnue"
    run_trainer(str(data_file), "--recipe", str(mine), "--epochs", "0", "--output-buckets", "2", "--out", str(out),
                capsys=capsys)
    net = read_net(out)
    assert (net.hidden, net.buckets, net.feature_set) == (16, 2, 0)
    assert net.description.startswith("recipe: mine | ") and "--output-buckets 2" in net.description
    for bad, fragment in [({**settings, "lr": 0}, "lr: 0 is out of range"),
                          ({**settings, "hidden": "128"}, "hidden: '128' is not a number"),
                          ({**settings, "king-mirror": 1}, "king-mirror: 1 is not true or false"),
                          ({**settings, "schedule": "linear"}, "schedule: 'linear' is not one of"),
                          ({**settings, "dropout": 0.1}, "unknown settings dropout"),
                          ({k: v for k, v in settings.items() if k != "lambda"}, "missing settings lambda")]:
        mine.write_text(json.dumps({"settings": bad}))
        assert main([str(data_file), "--recipe", str(mine), "--out", str(out)]) == 2
        error = capsys.readouterr().err
        assert "argument --recipe" in error and fragment in error, error
    mine.write_text("{not json")
    assert main([str(data_file), "--recipe", str(mine), "--out", str(out)]) == 2
    assert "not JSON" in capsys.readouterr().err
