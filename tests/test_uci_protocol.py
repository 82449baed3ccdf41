"""The exact text of Kestrel's UCI answers, over a raw pipe."""

from __future__ import annotations

import importlib
import re

import chess
import pytest
import tomllib
from conftest import REPO, UciProcess, bestmoves, info_strings

from uci_engine.strength import FULL_STRENGTH_ELO, MIN_ELO

BESTMOVE = re.compile(r"bestmove ([a-h][1-8][a-h][1-8][nbrq]?|0000)( ponder [a-h][1-8][a-h][1-8][nbrq]?)?")
INFO_ITERATION = re.compile(
    r"info depth \d+ seldepth \d+ multipv \d+ score (cp -?\d+|mate -?\d+)( lowerbound| upperbound)?"
    r" nodes \d+ nps \d+ hashfull \d+ time \d+ pv( [a-h][1-8][a-h][1-8][nbrq]?)+")
MIDDLEGAME = "r1bq1rk1/ppp1nppp/4n3/3p3Q/3P4/1BP1B3/PP1N2PP/R4RK1 w - - 1 16"
EXPECTED_OPTIONS = [
    "option name Hash type spin default 16 min 1 max 4096",
    "option name Threads type spin default 1 min 1 max 256",
    "option name MultiPV type spin default 1 min 1 max 64",
    "option name Ponder type check default false",
    "option name Move Overhead type spin default 50 min 0 max 5000",
    "option name Clear Hash type button",
    "option name OwnBook type check default false",
    "option name BookFile type string default <empty>",
    "option name UCI_Chess960 type check default false",
    "option name UCI_LimitStrength type check default false",
    f"option name UCI_Elo type spin default {FULL_STRENGTH_ELO} min {MIN_ELO} max {FULL_STRENGTH_ELO}",
    "option name Skill Level type spin default 20 min 0 max 20",
    "option name SyzygyPath type string default <empty>",
    "option name SyzygyProbeDepth type spin default 1 min 1 max 100",
    "option name Syzygy50MoveRule type check default true",
    "option name SyzygyProbeLimit type spin default 7 min 0 max 7",
    "option name UCI_ShowWDL type check default false",
    "option name Use NNUE type check default true",
    "option name EvalFile type string default kestrel-8.nnue",
    "option name UCI_AnalyseMode type check default false",
    "option name UCI_Opponent type string default <empty>",
    "option name SearchParams type string default <empty>",
]


def check_bestmove(line: str, fen: str = chess.STARTING_FEN) -> chess.Move:
    """The move of a `bestmove` line, checked for form and legality (ponder move too)."""
    match = BESTMOVE.fullmatch(line)
    assert match, line
    board = chess.Board(fen)
    move = chess.Move.from_uci(match.group(1))
    assert move in board.legal_moves, line
    if match.group(2):
        board.push(move)
        assert chess.Move.from_uci(match.group(2).split()[1]) in board.legal_moves, line
    return move


def test_handshake_text() -> None:
    process = UciProcess()
    try:
        process.send("uci")
        lines = process.read_until(lambda line: line == "uciok")
        assert lines[0] == "id name Kestrel 0.1.0"
        assert lines[1] == "id author the Kestrel developers"
        options = [line for line in lines if line.startswith("option ")]
        assert [o for o in options if "SearchMode" not in o and "MCTS" not in o] == EXPECTED_OPTIONS
        mode = [o for o in options if "name SearchMode " in o]
        assert mode and mode[0].startswith("option name SearchMode type combo default AlphaBeta var AlphaBeta")
        assert lines[-1] == "uciok" and len(lines) == 2 + len(options) + 1
        process.send("isready")
        assert process.read_line(20) == "readyok"
        process.send("quit")
        assert process.wait_exit() == 0
        assert process.stderr == ""
    finally:
        process.close()


def test_go_depth_prints_iterations_and_one_bestmove(engine: UciProcess) -> None:
    engine.send("position startpos", "go depth 4")
    lines = engine.read_until("bestmove")
    iterations = [line for line in lines if line.startswith("info depth")]
    assert [int(line.split()[2]) for line in iterations] == [1, 2, 3, 4]
    for line in iterations:
        assert INFO_ITERATION.fullmatch(line), line
    check_bestmove(lines[-1])
    assert bestmoves(engine.drain(0.3)) == []


def test_isready_is_answered_during_a_search_and_stop_gives_one_bestmove(engine: UciProcess) -> None:
    engine.send(f"position fen {MIDDLEGAME}", "go infinite")
    engine.read_until("info depth 3")
    engine.send("isready")
    lines = engine.read_until(lambda line: line == "readyok", 5)
    assert bestmoves(lines) == []
    engine.send("stop")
    check_bestmove(engine.read_until("bestmove", 5)[-1], MIDDLEGAME)
    assert bestmoves(engine.drain(0.3)) == []


def test_stop_at_once_still_gives_a_legal_bestmove(engine: UciProcess) -> None:
    for _ in range(3):
        engine.send("position startpos moves e2e4", "go infinite", "stop")
        check_bestmove(engine.read_until("bestmove", 5)[-1],
                       "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
    engine.send("go movetime 0")
    engine.read_until("bestmove", 5)


def test_infinite_waits_for_stop_even_when_the_search_is_done(engine: UciProcess) -> None:
    engine.send("position fen 7k/8/6K1/8/8/8/Q7/8 w - - 0 1", "go infinite")   # mate in one
    assert bestmoves(engine.drain(1.0)) == []
    engine.send("stop")
    assert engine.read_until("bestmove", 5)[-1].startswith("bestmove a2a8")


def test_no_legal_move_gives_bestmove_0000(engine: UciProcess) -> None:
    engine.send("position fen 7k/6Q1/6K1/8/8/8/8/8 b - - 0 1", "go depth 5")   # checkmated
    lines = engine.read_until("bestmove", 5)
    assert "info depth 0 score mate 0" in lines and lines[-1] == "bestmove 0000"
    engine.send("position fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", "go infinite")   # stalemate
    lines = engine.drain(0.5)
    assert bestmoves(lines) == []
    engine.send("stop")
    lines += engine.read_until("bestmove", 5)
    assert "info depth 0 score cp 0" in lines and lines[-1] == "bestmove 0000"


def test_only_move(engine: UciProcess) -> None:
    engine.send("position fen 7k/8/8/8/8/8/6R1/K5R1 b - - 0 1", "go wtime 1000 btime 1000")
    assert engine.read_until("bestmove", 10)[-1].split()[:2] == ["bestmove", "h8h7"]


def test_ponder_waits_for_ponderhit_or_stop(engine: UciProcess) -> None:
    engine.send("position startpos moves e2e4 e7e5", "go ponder wtime 2000 btime 2000 winc 10 binc 10")
    assert bestmoves(engine.drain(1.0)) == []
    engine.send("ponderhit")
    board = chess.Board()
    board.push_uci("e2e4")
    board.push_uci("e7e5")
    check_bestmove(engine.read_until("bestmove", 10)[-1], board.fen())
    engine.send("go ponder wtime 2000 btime 2000")
    assert bestmoves(engine.drain(0.5)) == []
    engine.send("stop")
    check_bestmove(engine.read_until("bestmove", 5)[-1], board.fen())
    assert bestmoves(engine.drain(0.3)) == []


def test_a_go_during_a_search_ends_it_first(engine: UciProcess) -> None:
    engine.send("go infinite")
    engine.read_until("info depth 2")
    engine.send("go depth 2")
    lines = engine.read_until("bestmove")
    lines += engine.read_until("bestmove")
    assert len(bestmoves(lines)) == 2
    assert bestmoves(engine.drain(0.3)) == []


def test_multipv_lines(engine: UciProcess) -> None:
    engine.send("setoption name multipv value 3", "position startpos", "go depth 3")
    lines = engine.read_until("bestmove")
    last = [line for line in lines if line.startswith("info depth 3 ")]
    assert [line.split()[6] for line in last] == ["1", "2", "3"]
    assert len({line.split(" pv ")[1].split()[0] for line in last}) == 3


def test_currmove_on_a_long_search(engine: UciProcess) -> None:
    # The searcher reports the move it is on once a search has run for 3 s.
    engine.send(f"position fen {MIDDLEGAME}", "go infinite")
    line = engine.read_until(lambda line: " currmove " in line, 20)[-1]
    assert re.fullmatch(r"info depth \d+ currmove [a-h][1-8][a-h][1-8][nbrq]? currmovenumber \d+", line)
    engine.send("stop")
    check_bestmove(engine.read_until("bestmove", 5)[-1], MIDDLEGAME)


def test_perft_d_and_eval(engine: UciProcess) -> None:
    engine.send("go perft 3")
    lines = engine.read_until("Nodes searched")
    assert lines[-1] == "Nodes searched: 8902" and "e2e4: 600" in lines
    engine.send("position startpos moves e2e4", "d")
    lines = engine.read_until("Key: ")
    assert "Fen: rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1" in lines
    assert re.fullmatch(r"Key: [0-9A-F]{16}", lines[-1])
    engine.send("eval")
    lines = engine.read_until(lambda line: "total" in line)
    assert any(line.startswith("material") for line in lines)


def test_bench_command_and_shell_bench(engine: UciProcess) -> None:
    engine.send("bench 2")
    lines = engine.read_until("Nodes/second", 60)
    assert any(line.startswith("Nodes searched") for line in lines)
    shell = UciProcess("bench", "2")
    try:
        lines = shell.read_until("Nodes/second", 60)
        assert any(line.startswith("Nodes searched") for line in lines)
        assert shell.wait_exit() == 0
    finally:
        shell.close()


def test_console_script_entry_point(capsys: pytest.CaptureFixture[str]) -> None:
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]
    module_name, function = scripts["kestrel"].split(":")
    main = getattr(importlib.import_module(module_name), function)
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == "Kestrel 0.1.0\n"
    assert main(["--no-such-flag"]) == 2


def test_debug_mode_reports_settings(engine: UciProcess) -> None:
    engine.send("debug on", "setoption name Move Overhead value 30")
    assert "Move Overhead = 30" in info_strings(engine.ready())
    engine.send("debug off", "setoption name Move Overhead value 40")
    assert info_strings(engine.ready()) == []


@pytest.mark.parametrize("threads", [1, 3])
def test_quit_after_a_search_with_tablebases_leaves_stderr_empty(threads: int) -> None:
    """With SyzygyPath set, the searcher was freed at the interpreter's end, after the garbage
    collector had cleared its thread pool's list: `quit` printed a TypeError from
    ThreadPool.close on stderr, in every GUI's and lichess-bot's log."""
    process = UciProcess()
    try:
        if threads > 1:     # (with Threads set to 1 first, the fault did not show)
            process.send(f"setoption name Threads value {threads}")
        process.send(f"setoption name SyzygyPath value {REPO.parent / 'shared' / 'data' / 'syzygy'}",
                     "position startpos", "go depth 6")
        process.read_until("bestmove")
        process.send("quit")
        assert process.wait_exit() == 0
        assert process.stderr == ""
    finally:
        process.close()


def test_quit_during_a_search_ends_cleanly(engine: UciProcess) -> None:
    engine.send("go infinite")
    engine.read_until("info depth 2")
    engine.send("quit")
    lines = engine.read_until("bestmove", 5)
    assert len(bestmoves(lines)) == 1
    assert engine.wait_exit(10) == 0


def test_closed_stdin_during_a_search_ends_cleanly(engine: UciProcess) -> None:
    engine.send(f"position fen {MIDDLEGAME}", "go infinite")
    engine.read_until("info depth 2")
    engine.close_stdin()
    lines = engine.read_until("bestmove", 5)
    assert "input closed during a search: stopping it and quitting" in info_strings(lines)
    check_bestmove(lines[-1], MIDDLEGAME)
    assert engine.wait_exit(10) == 0
    assert engine.stderr == ""
