"""The learned evaluation through UCI: `Use NNUE`, `EvalFile`, and bad net files that change nothing."""

from __future__ import annotations

import re
from array import array
from pathlib import Path

import pytest
from conftest import UciProcess, bestmoves, info_strings
from net_files import constant_net_file, random_parameters

from eval.networks import BUILTIN_NET, builtin_path
from eval.nnue_architecture import INPUTS
from eval.nnue_file import QA, QB, SCALE, NetParameters, net_bytes, read_net, write_net

CONSTANT_CP = 1235      # what the constant net below says about every position, for the side to move


def constant_net(path: Path) -> Path:
    return constant_net_file(path, CONSTANT_CP)


def random_net(path: Path) -> Path:
    p = random_parameters(hidden=64, seed=3)
    write_net(path, NetParameters(description="test: random", **{k: v for k, v in p.items()}))
    return path


def answer_to(engine: UciProcess, line: str) -> list[str]:
    engine.send(line)
    return info_strings(engine.ready())


def depth_one_score(engine: UciProcess) -> int:
    """The cp score of `go depth 1` from the start position (the children's evaluation, negated)."""
    engine.send("position startpos", "go depth 1")
    lines = engine.read_until(lambda line: line.startswith("bestmove"))
    scores = [int(m.group(1)) for line in lines if (m := re.search(r" score cp (-?\d+)", line))]
    assert scores and bestmoves(lines), lines
    return scores[-1]


def test_the_options_are_declared_as_stockfish_declares_them(engine: UciProcess) -> None:
    lines = engine.handshake()
    assert "option name Use NNUE type check default true" in lines
    assert f"option name EvalFile type string default {BUILTIN_NET}" in lines


def test_the_built_in_net_ships_and_plays(engine: UciProcess) -> None:
    params = read_net(builtin_path())          # checksum and format checked
    assert params.hidden >= 128 and "nnue_train" in params.description
    engine.handshake()
    assert answer_to(engine, "isready") == []     # on by default, and no complaint about the built-in net
    engine.send("eval")
    assert any(line.startswith("NNUE evaluation") for line in engine.read_until("NNUE evaluation"))
    engine.send("position startpos", "go depth 6")
    assert bestmoves(engine.read_until(lambda line: line.startswith("bestmove")))


def test_an_eval_file_is_used_and_use_nnue_false_turns_it_off(engine: UciProcess, tmp_path: Path) -> None:
    net = constant_net(tmp_path / "constant.nnue")
    engine.handshake()
    # On by default: the loaded net plays at once.
    assert answer_to(engine, f"setoption name EvalFile value {net}") == [f"EvalFile '{net}' loaded: 16 hidden units"]
    # After White's move every child is +CONSTANT_CP for Black: the root's score is its negation.
    assert depth_one_score(engine) == -CONSTANT_CP
    engine.send("setoption name Use NNUE value false")
    weighted = depth_one_score(engine)
    assert abs(weighted) < 200
    engine.send("setoption name Use NNUE value true")
    assert depth_one_score(engine) == -CONSTANT_CP
    # Back to the built-in net by its name.
    assert not any("cannot" in line for line in answer_to(engine, f"setoption name EvalFile value {BUILTIN_NET}"))
    assert depth_one_score(engine) != -CONSTANT_CP


def fen_score(engine: UciProcess, fen: str, depth: int = 1) -> int:
    """The last cp score of `go depth DEPTH` from `fen`."""
    engine.send(f"position fen {fen}", f"go depth {depth}")
    lines = engine.read_until(lambda line: line.startswith("bestmove"))
    scores = [int(m.group(1)) for line in lines if (m := re.search(r" score cp (-?\d+)", line))]
    assert scores, lines
    return scores[-1]


def test_a_king_mirrored_net_loads_and_searches_a_mirror_image_alike(engine: UciProcess, tmp_path: Path) -> None:
    """A version-3 net (king mirroring) is named as such, and a search scores a position and its
    left-right mirror image the same with it (a plain net of the same weights does not)."""
    fens = ["r4rk1/pp3ppp/2n1b3/3p4/3P4/2NB1N2/PP3PPP/R4RK1 w - - 0 1",
            "2r3k1/5pp1/p3p2p/1p1b4/3P4/P1R2N2/1P3PPP/6K1 b - - 0 1"]
    mirrored = [fen.replace(fen.split()[0], "/".join(rank[::-1] for rank in fen.split()[0].split("/"))) for fen in fens]
    p = random_parameters(hidden=64, seed=3, feature_set=1)
    for feature_set in (1, 0):
        net = tmp_path / f"net{feature_set}.nnue"
        write_net(net, NetParameters(description="test: mirrored", **{**p, "feature_set": feature_set}))
        engine.send(f"setoption name EvalFile value {net}")
        loaded = info_strings(engine.ready())
        same = [fen_score(engine, fen) == fen_score(engine, image) for fen, image in zip(fens, mirrored, strict=True)]
        if feature_set:
            assert loaded == [f"EvalFile '{net}' loaded: 64 hidden units, king-mirrored inputs"]
            assert all(same)
        else:
            assert loaded == [f"EvalFile '{net}' loaded: 64 hidden units"]
            assert not all(same)


def test_a_net_with_output_buckets_scores_by_piece_count(engine: UciProcess, tmp_path: Path) -> None:
    """A version-2 net with 8 output buckets that says 100 cp times (bucket + 1) for the side to move:
    the engine loads it, names its buckets, and searches with the layer of each position's piece count."""
    hidden = 16
    net = tmp_path / "buckets.nnue"
    write_net(net, NetParameters(hidden=hidden, qa=QA, qb=QB, scale=SCALE, description="test: buckets",
                                 feature_weights=array("h", [0] * (INPUTS * hidden)),
                                 feature_bias=array("h", [0] * hidden),
                                 output_weights=array("h", [0] * (8 * 2 * hidden)),
                                 output_biases=tuple(100 * (k + 1) * QA * QB // SCALE for k in range(8))))
    engine.handshake()
    assert answer_to(engine, f"setoption name EvalFile value {net}") == [
        f"EvalFile '{net}' loaded: 16 hidden units, 8 output buckets"]
    assert depth_one_score(engine) == -800          # 32 pieces after any first move: the last bucket
    # Positions where no move checks or captures at depth 1, so every leaf keeps the root's piece count.
    engine.send("position fen 4k3/p7/8/8/8/8/P7/4K3 w - - 0 1", "go depth 1")
    lines = engine.read_until(lambda line: line.startswith("bestmove"))
    assert " score cp -100 " in " ".join(lines) + " "   # 4 pieces: the first bucket
    engine.send("position fen r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1", "go depth 1")
    lines = engine.read_until(lambda line: line.startswith("bestmove"))
    assert " score cp -600 " in " ".join(lines) + " "   # 22 pieces: bucket (22 - 2) * 8 // 31 = 5


@pytest.mark.parametrize("damage, reason", [
    ("missing", "No such file"),
    ("truncated", "truncated"),
    ("flipped", "checksum"),
    ("not a net", "not a Kestrel NNUE net"),
])
def test_a_bad_eval_file_is_reported_and_the_built_in_net_plays(engine: UciProcess, tmp_path: Path,
                                                                 damage: str, reason: str) -> None:
    good = random_net(tmp_path / "good.nnue")
    data = good.read_bytes()
    bad = tmp_path / "bad.nnue"
    if damage == "truncated":
        bad.write_bytes(data[: len(data) // 2])
    elif damage == "flipped":
        bad.write_bytes(data[:1000] + bytes([data[1000] ^ 1]) + data[1001:])
    elif damage == "not a net":
        bad.write_text("hello, I am a text file\n" * 40)
    engine.handshake()
    engine.send("setoption name Use NNUE value true")
    constant = constant_net(tmp_path / "constant.nnue")
    answer_to(engine, f"setoption name EvalFile value {constant}")
    reply = answer_to(engine, f"setoption name EvalFile value {bad}")
    assert len(reply) == 1 and reason.lower() in reply[0].lower(), reply
    assert "the built-in net takes its place" in reply[0]
    # The constant net is gone: the built-in one plays, and the engine keeps serving.
    assert depth_one_score(engine) != -CONSTANT_CP
    engine.send("position startpos moves e2e4", "go depth 4")
    assert bestmoves(engine.read_until(lambda line: line.startswith("bestmove")))


def test_human_levels_play_with_the_evaluation_the_options_choose(engine: UciProcess, tmp_path: Path) -> None:
    """Their calibration against Stockfish's UCI_Elo (docs/play.md) was measured with the net."""
    engine.handshake()
    answer_to(engine, f"setoption name EvalFile value {constant_net(tmp_path / 'constant.nnue')}")
    assert depth_one_score(engine) == -CONSTANT_CP
    engine.send("setoption name UCI_Elo value 1500")
    for level in ("setoption name UCI_LimitStrength value true", "setoption name Skill Level value 10"):
        engine.send(level)
        assert depth_one_score(engine) == -CONSTANT_CP
        engine.send("setoption name Use NNUE value false")
        assert abs(depth_one_score(engine)) < 200               # the weighted evaluation, when asked for
        engine.send("setoption name Use NNUE value true", "setoption name UCI_LimitStrength value false",
                    "setoption name Skill Level value 20")
        assert depth_one_score(engine) == -CONSTANT_CP


def test_bench_searches_with_the_evaluation_the_options_choose(engine: UciProcess) -> None:
    from eval.networks import builtin_network
    from search.bench import run_bench

    def bench_nodes() -> int:
        engine.send("bench 5")
        lines = engine.read_until("Nodes/second", 60)
        return int(next(line for line in lines if line.startswith("Nodes searched")).split(":")[1])

    engine.handshake()
    assert bench_nodes() == run_bench(5, out=lambda line: None, network=builtin_network())[0]
    engine.send("setoption name Use NNUE value false")
    assert bench_nodes() == run_bench(5, out=lambda line: None)[0]


def test_bench_searches_with_the_switches_of_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """An ablation's engine (KESTREL_SEARCH_OFF) benches the tree its games search."""
    from eval.networks import builtin_network
    from search.alphabeta_searcher import AlphaBetaSearcher
    from search.bench import run_bench
    from uci_engine import core

    monkeypatch.setenv(core.SEARCH_OFF_VARIABLE, "null_move")
    switched_off = AlphaBetaSearcher(hash_mb=16)
    switched_off.set_network(builtin_network())
    switched_off.configure(null_move=False)
    expected = run_bench(5, out=lambda line: None, searcher=switched_off)[0]
    assert expected != run_bench(5, out=lambda line: None, network=builtin_network())[0]
    process = UciProcess()
    try:
        process.handshake()
        process.send("bench 5")
        lines = process.read_until("Nodes/second", 60)
        assert int(next(line for line in lines if line.startswith("Nodes searched")).split(":")[1]) == expected
    finally:
        process.close()


def test_eval_shows_the_nets_score(engine: UciProcess, tmp_path: Path) -> None:
    engine.handshake()
    engine.send("setoption name Use NNUE value true")
    answer_to(engine, f"setoption name EvalFile value {constant_net(tmp_path / 'constant.nnue')}")
    engine.send("eval")
    assert f"NNUE evaluation {CONSTANT_CP} (side to move), the one the search uses" in engine.read_until("NNUE")
    engine.send("setoption name Use NNUE value false", "eval")
    lines = engine.read_until(lambda text: "total" in text)
    assert not any("NNUE" in text for text in engine.ready() + lines)


def test_net_bytes_round_trip_for_the_loader(tmp_path: Path) -> None:
    path = random_net(tmp_path / "r.nnue")
    assert net_bytes(read_net(path)) == path.read_bytes()
