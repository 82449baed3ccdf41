"""Kestrel driven by python-chess's chess.engine, as lichess-bot drives it."""

from __future__ import annotations

import random
import struct
import sys
import time
from pathlib import Path

import chess
import chess.engine
import chess.polyglot
import pytest
import yaml
from conftest import REPO, play_with_clocks

from search.limits import MAX_THREADS

MIDDLEGAME = "r1bq1rk1/ppp1nppp/4n3/3p3Q/3P4/1BP1B3/PP1N2PP/R4RK1 w - - 1 16"


SYZYGY = REPO.parent / "shared" / "data" / "syzygy"


def test_identity_and_options(kestrel: chess.engine.SimpleEngine) -> None:
    assert kestrel.id["name"] == "Kestrel 0.1.0"
    options = kestrel.options
    for name in ("Hash", "Threads", "MultiPV", "Ponder", "Move Overhead", "Clear Hash", "SearchMode",
                 "OwnBook", "BookFile"):
        assert name in options
    assert (options["Threads"].min, options["Threads"].max) == (1, MAX_THREADS)
    assert options["BookFile"].type == "string"
    assert "AlphaBeta" in (options["SearchMode"].var or [])


@pytest.mark.serial(cores=1)
def test_analyse_depth_nodes_time(kestrel: chess.engine.SimpleEngine) -> None:
    board = chess.Board(MIDDLEGAME)
    info = kestrel.analyse(board, chess.engine.Limit(depth=5))
    assert info["depth"] == 5 and info["pv"][0] in board.legal_moves
    assert isinstance(info["score"], chess.engine.PovScore) and info["nodes"] > 0

    info = kestrel.analyse(board, chess.engine.Limit(nodes=3000))
    assert info["pv"][0] in board.legal_moves
    assert info["nodes"] <= 3000 + 1000    # reports come after whole iterations or a stop

    start = time.monotonic()
    info = kestrel.analyse(board, chess.engine.Limit(time=0.3))
    assert time.monotonic() - start < 3.0
    assert info["pv"][0] in board.legal_moves and info["time"] <= 0.35


def test_analyse_mate_score(kestrel: chess.engine.SimpleEngine) -> None:
    board = chess.Board("7k/8/6K1/8/8/8/Q7/8 w - - 0 1")
    info = kestrel.analyse(board, chess.engine.Limit(depth=4))
    assert info["score"].white() == chess.engine.Mate(1)
    assert info["pv"][0] == chess.Move.from_uci("a2a8")


def test_analyse_multipv(kestrel: chess.engine.SimpleEngine) -> None:
    board = chess.Board()
    infos = kestrel.analyse(board, chess.engine.Limit(depth=4), multipv=3)
    assert [info["multipv"] for info in infos] == [1, 2, 3]
    firsts = [info["pv"][0] for info in infos]
    assert len(set(firsts)) == 3 and all(move in board.legal_moves for move in firsts)
    # Ordered best first, as the GUI shows them.
    scores = [info["score"].white().score() for info in infos]
    assert scores == sorted(scores, reverse=True)


def test_analysis_stream_and_stop(kestrel: chess.engine.SimpleEngine) -> None:
    with kestrel.analysis(chess.Board(MIDDLEGAME)) as analysis:
        for info in analysis:
            if info.get("depth", 0) >= 4:
                break
    best = analysis.wait()
    assert best.move in chess.Board(MIDDLEGAME).legal_moves


@pytest.mark.serial(cores=1)
def test_play_with_clocks_and_increments(kestrel: chess.engine.SimpleEngine) -> None:
    board = play_with_clocks(kestrel, kestrel, plies=24, clock=3.0, increment=0.05)
    assert len(board.move_stack) >= 20 or board.is_game_over(claim_draw=True)


@pytest.mark.serial(cores=1)
def test_play_with_ponder(kestrel: chess.engine.SimpleEngine) -> None:
    """Kestrel ponders on its expected reply: the opponent plays it half the time (ponderhit),
    something else otherwise (stop and a new search)."""
    rng = random.Random(7)
    board = chess.Board()
    game = object()
    hits = misses = 0
    expected = None
    while not board.is_game_over() and len(board.move_stack) < 24:
        if board.turn == chess.WHITE:
            limit = chess.engine.Limit(white_clock=2.0, black_clock=2.0, white_inc=0.05, black_inc=0.05)
            start = time.monotonic()
            result = kestrel.play(board, limit, game=game, ponder=True)
            assert time.monotonic() - start < 1.5
            assert result.move in board.legal_moves
            board.push(result.move)
            expected = result.ponder
        else:
            legal = list(board.legal_moves)
            if expected in legal and rng.random() < 0.5:
                move, hits = expected, hits + 1
            else:
                move, misses = rng.choice(legal), misses + 1
            board.push(move)
    assert hits >= 2 and misses >= 2


def test_configure_every_option(kestrel: chess.engine.SimpleEngine, tmp_path: Path) -> None:
    book = tmp_path / "book.bin"
    write_book(book, [(chess.Board(), {"e2e4": 1})])
    values: dict[str, object] = {
        "Hash": 8, "Threads": 1, "Move Overhead": 20, "Clear Hash": None, "SearchMode": "AlphaBeta",
        "OwnBook": False, "BookFile": str(book),
        "MCTS Exploration": 100, "MCTS Leaf": "playout", "MCTS Seed": 3, "MCTS Selection": "uct",
        "MCTS CPuct": 1500, "MCTS FPU Reduction": 50, "MCTS Prior Temperature": 150, "MCTS Leaf Depth": 1,
        "MCTS Leaf Depth Root": 3,
        "MCTS Score Curve": "logistic", "MCTS Recycle": False,
        "UCI_LimitStrength": True, "UCI_Elo": 1500, "Skill Level": 10,
        "SyzygyPath": str(SYZYGY), "SyzygyProbeDepth": 4, "Syzygy50MoveRule": False, "SyzygyProbeLimit": 5,
        "UCI_ShowWDL": True, "UCI_AnalyseMode": True, "UCI_Opponent": "GM 2800 human Magnus Carlsen",
        "SearchParams": "rfp_margin=90", "Use NNUE": False, "EvalFile": "kestrel-8.nnue",
    }
    # python-chess sets these itself (analyse multipv=, play ponder=, a Chess960 board).
    managed = {"MultiPV", "Ponder", "UCI_Chess960"}
    declared = [name for name in kestrel.options if name not in managed]
    assert set(declared) <= set(values), "a declared option has no test value"
    for name in declared:
        kestrel.configure({name: values[name]})
        assert kestrel.ping() is None
    for mode in kestrel.options["SearchMode"].var or []:
        kestrel.configure({"SearchMode": mode})
        result = kestrel.play(chess.Board(), chess.engine.Limit(time=0.2))
        assert result.move in chess.Board().legal_moves


def write_book(path: Path, book: list[tuple[chess.Board, dict[str, int]]]) -> None:
    """A Polyglot book: 16-byte entries (key, move, weight, learn), sorted by key."""
    entries: list[bytes] = []
    for board, moves in book:
        key = chess.polyglot.zobrist_hash(board)
        for uci, weight in moves.items():
            move = chess.Move.from_uci(uci)
            raw = move.to_square | (move.from_square << 6) | ((move.promotion - 1 if move.promotion else 0) << 12)
            entries.append(struct.pack(">QHHI", key, raw, weight, 0))
    path.write_bytes(b"".join(sorted(entries)))


def test_own_book(kestrel: chess.engine.SimpleEngine, tmp_path: Path) -> None:
    start = chess.Board()
    after_e4 = chess.Board()
    after_e4.push_uci("e2e4")
    path = tmp_path / "small.bin"
    write_book(path, [(start, {"e2e4": 30, "d2d4": 10}), (after_e4, {"c7c5": 5, "e7e5": 1})])
    kestrel.configure({"OwnBook": True, "BookFile": str(path)})
    clocks = chess.engine.Limit(white_clock=10, black_clock=10)
    seen = set()
    for _ in range(30):
        result = kestrel.play(start, clocks, info=chess.engine.INFO_ALL)
        seen.add(result.move.uci())
        assert result.info.get("string", "").startswith("book move")
        if result.move.uci() == "e2e4":
            assert result.ponder == chess.Move.from_uci("c7c5")
    assert seen == {"e2e4", "d2d4"}
    # Out of the book, and in analysis, Kestrel searches.
    out_of_book = chess.Board(MIDDLEGAME)
    assert "string" not in kestrel.play(out_of_book, clocks, info=chess.engine.INFO_ALL).info
    assert kestrel.analyse(start, chess.engine.Limit(depth=3))["depth"] == 3


def readme_lichess_bot_engine_section() -> dict[str, object]:
    """The `engine:` section of the lichess-bot example in the README (or its draft)."""
    for path in (REPO / "README.md", REPO / "uci_engine" / "README_section.md"):
        text = path.read_text() if path.exists() else ""
        if "### lichess-bot" in text:
            block = text.split("### lichess-bot", 1)[1].split("```yaml\n", 1)[1].split("```", 1)[0]
            return yaml.safe_load(block)["engine"]
    raise AssertionError("no lichess-bot section in the README")


def test_readme_lichess_bot_configuration(tmp_path: Path) -> None:
    """The README's config, with Kestrel started as `python <checkout>/uci_engine` from another folder."""
    config = readme_lichess_bot_engine_section()
    assert config["protocol"] == "uci" and config["name"] == "kestrel"
    engine = chess.engine.SimpleEngine.popen_uci([sys.executable, str(REPO / "uci_engine")], cwd=tmp_path,
                                                 timeout=30)
    try:
        engine.configure(config["uci_options"])   # python-chess checks names and ranges
        board = chess.Board()
        game = object()
        for _ in range(4):
            result = engine.play(board, chess.engine.Limit(white_clock=3, black_clock=3, white_inc=0.1,
                                                           black_inc=0.1), game=game, ponder=config["ponder"])
            assert result.move in board.legal_moves
            board.push(result.move)
    finally:
        engine.quit()
