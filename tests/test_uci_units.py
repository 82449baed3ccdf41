"""The UCI front in-process: parsers, option checks, info formatting, options reaching the searcher."""

from __future__ import annotations

import io

import chess
import pytest

from search.info import CurrentMove, InfoString, SearchInfo
from search.limits import MAX_DEPTH
from uci_engine.options import OptionError, build_options, shown
from uci_engine.output import Output, format_info
from uci_engine.parsing import CommandError, parse_go, parse_position, parse_setoption
from uci_engine.protocol import UciEngine


def test_option_declarations_and_lookup() -> None:
    options = build_options(("AlphaBeta", "MCTS"))
    assert options["move overhead"] is options["Move  Overhead"]
    assert options["searchmode"].declaration() == \
        "option name SearchMode type combo default AlphaBeta var AlphaBeta var MCTS"
    assert "MCTS Exploration" in options and "MCTS Exploration" not in build_options()
    assert options["MCTS Exploration"].declaration() == \
        "option name MCTS Exploration type spin default 50 min 0 max 5000"
    assert options.set("SEARCHMODE", "mcts").value == "MCTS"
    assert options.set("OwnBook", "TRUE").value is True
    assert options.set("BookFile", "  /books/my book.bin ").value == "/books/my book.bin"
    assert options.set("BookFile", "<empty>").value == ""
    assert options.set("Clear Hash", None).value is None
    with pytest.raises(OptionError, match="must be from 1 to 64, not 65"):
        options.set("MultiPV", "65")
    assert options.value("MultiPV") == 1   # unchanged by the rejected value
    with pytest.raises(OptionError, match="no option named"):
        options.set("Contempt", "1")


def test_shown_escapes_what_a_gui_cannot_print() -> None:
    assert shown("a\x00b\u00e9\n") == "'a\\x00b\\xe9\\n'"
    assert shown("x" * 100).endswith("...'")


def test_parse_setoption() -> None:
    assert parse_setoption("setoption name Move Overhead value 100") == ("Move Overhead", "100")
    assert parse_setoption("setoption name Clear Hash") == ("Clear Hash", None)
    assert parse_setoption("setoption name BookFile value C:\\books\\a value b.bin") == \
        ("BookFile", "C:\\books\\a value b.bin")
    assert parse_setoption("setoption name BookFile value ") == ("BookFile", "")
    with pytest.raises(CommandError):
        parse_setoption("setoption Hash 16")


def test_parse_go() -> None:
    go = parse_go("wtime 1000 btime -20 winc 10 binc 10 movestogo 5 searchmoves e2e4 d2d4 ponder".split())
    assert go.numbers == {"wtime": 1000, "btime": 0, "winc": 10, "binc": 10, "movestogo": 5}
    assert go.searchmoves == ["e2e4", "d2d4"] and go.ponder and not go.infinite and go.warnings == []
    go = parse_go("depth 0 mate 500 nodes 1_000 perft 3 movetime".split())
    assert go.numbers == {"depth": 1, "mate": MAX_DEPTH // 2} and go.perft == 3
    half = MAX_DEPTH // 2
    assert go.warnings == ["go: depth must be at least 1, not 0; using 1",
                           f"go: mate 500 is more than {half}; using {half}",
                           "go: nodes takes a whole number, not '1_000'; ignored",
                           "go: movetime needs a number; ignored"]


def test_parse_position() -> None:
    assert parse_position("startpos".split()) == (None, [])
    assert parse_position("startpos moves e2e4 e7e5".split()) == (None, ["e2e4", "e7e5"])
    assert parse_position("fen 8/8/8/8/8/8/8/K6k w - - 0 1 moves a1a2".split()) == \
        ("8/8/8/8/8/8/8/K6k w - - 0 1", ["a1a2"])
    for bad in ("", "moves e2e4", "fen moves e2e4", "startpos e2e4"):
        with pytest.raises(CommandError):
            parse_position(bad.split())


def test_format_info() -> None:
    info = SearchInfo(depth=5, seldepth=9, multipv=1, score=("mate", -3), bound="upperbound",
                      nodes=1234, nps=56789, hashfull=7, time=21, pv=["e2e4", "e7e5"])
    assert format_info(info) == ("info depth 5 seldepth 9 multipv 1 score mate -3 upperbound nodes 1234 "
                                 "nps 56789 hashfull 7 time 21 pv e2e4 e7e5")
    with_tables = SearchInfo(depth=1, seldepth=1, multipv=1, score=("cp", 20000), nodes=1, nps=1000,
                             hashfull=0, time=1, pv=["a1a2"], tbhits=1, wdl=(1000, 0, 0))
    assert format_info(with_tables) == ("info depth 1 seldepth 1 multipv 1 score cp 20000 wdl 1000 0 0 nodes 1 "
                                        "nps 1000 hashfull 0 tbhits 1 time 1 pv a1a2")
    assert format_info(CurrentMove(depth=12, move="g1f3", number=4)) == \
        "info depth 12 currmove g1f3 currmovenumber 4"
    assert format_info(InfoString("two\nlines")) == "info string two lines"


class Session:
    """UciEngine fed lines directly, its output collected."""

    def __init__(self) -> None:
        self.buffer = io.BytesIO()
        self.engine = UciEngine(Output(self.buffer))

    def send(self, *lines: str) -> list[str]:
        start = len(self.buffer.getvalue())
        for line in lines:
            assert self.engine.handle(line)
        return self.buffer.getvalue()[start:].decode().splitlines()

    def search(self, *lines: str) -> list[str]:
        start = len(self.buffer.getvalue())
        self.send(*lines)
        assert self.engine._job is not None and self.engine._job.wait(30)
        return self.buffer.getvalue()[start:].decode().splitlines()

    @property
    def searcher(self):  # type: ignore[no-untyped-def]
        return self.engine._searchers["AlphaBeta"]


def test_options_reach_the_searcher() -> None:
    session = Session()
    assert session.send("setoption name Hash value 4", "setoption name MultiPV value 2",
                        "setoption name Move Overhead value 123", "setoption name Threads value 1") == []
    searcher = session.searcher
    assert (searcher.hash_size_mb, searcher.multipv, searcher.move_overhead) == (4, 2, 123)
    session.search("position startpos", "go depth 6")
    assert searcher.hashfull() > 0
    session.send("setoption name Clear Hash")
    assert searcher.hashfull() == 0
    session.search("go depth 6")
    session.send("ucinewgame")
    assert searcher.hashfull() == 0


def test_a_level_searches_without_the_level_switches(monkeypatch: pytest.MonkeyPatch) -> None:
    """A level switches off what strength.LEVEL_SWITCHES names (its curve was fitted without it);
    full strength gets it back, and the environment's switches hold in both."""
    from uci_engine import core
    from uci_engine.strength import LEVEL_SWITCHES

    assert LEVEL_SWITCHES == {"singular_extension": False, "correction_history": False, "probcut": False}
    monkeypatch.setenv(core.SEARCH_OFF_VARIABLE, "null_move")
    session = Session()
    session.search("position startpos", "go depth 2")
    searcher = session.searcher
    assert all(searcher.switches[name] for name in LEVEL_SWITCHES)
    assert not searcher.switches["null_move"]
    session.send("setoption name UCI_LimitStrength value true", "setoption name UCI_Elo value 1900")
    session.search("go depth 2")
    assert session.searcher is searcher
    assert not any(searcher.switches[name] for name in LEVEL_SWITCHES)
    assert not searcher.switches["null_move"] and searcher.switches["late_move_reductions"]
    session.send("setoption name UCI_LimitStrength value false")
    session.search("go depth 2")
    assert all(searcher.switches[name] for name in LEVEL_SWITCHES)
    assert not searcher.switches["null_move"]


def test_options_set_during_a_search_wait_for_its_end() -> None:
    session = Session()
    session.send("go infinite")
    assert session.send("setoption name Hash value 2") == ["info string Hash takes effect when the current search ends"]
    assert session.searcher.hash_size_mb == 16
    session.send("stop")
    assert session.engine._job is not None and session.engine._job.wait(5)
    session.search("go depth 1")
    assert session.searcher.hash_size_mb == 2
    assert session.engine.shutdown()


def test_an_unbuildable_searcher_still_answers_go(monkeypatch: pytest.MonkeyPatch) -> None:
    from uci_engine import core

    def broken(mode: str) -> None:
        raise ImportError("search.engine is not built")

    monkeypatch.setattr(core, "searcher_class", broken)
    session = Session()
    lines = session.search("position startpos", "go depth 3")
    assert lines[0] == "info string the searcher cannot start: ImportError: search.engine is not built"
    assert lines[-1].split()[0] == "bestmove"
    assert chess.Move.from_uci(lines[-1].split()[1]) in chess.Board().legal_moves


def test_mcts_options_reach_the_mcts_searcher() -> None:
    from search.mcts_settings import DEFAULT_EXPLORATION

    session = Session()
    assert session.engine.options.value("MCTS Exploration") == round(DEFAULT_EXPLORATION * 1000)
    assert session.send("setoption name SearchMode value MCTS", "setoption name MCTS Exploration value 200",
                        "setoption name MCTS Leaf value playout", "setoption name MCTS Seed value 9",
                        "setoption name Hash value 8") == []
    mcts = session.engine._searchers["MCTS"]
    assert (mcts.exploration, mcts.leaf_mode, mcts.seed, mcts.hash_size_mb) == (0.2, "playout", 9, 8)
    lines = session.search("position startpos", "go nodes 2000")
    assert lines[-1].startswith("bestmove ")
    assert "AlphaBeta" not in session.engine._searchers   # the alpha-beta searcher was never needed


def test_search_off_variable_switches_techniques_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """KESTREL_SEARCH_OFF (for ablation matches) reaches the searcher; a wrong name is an error."""
    from search.board import Position
    from search.limits import SearchLimits
    from uci_engine import core

    fen = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"
    nodes = {}
    for value in ("", "null_move, late_move_pruning"):
        monkeypatch.setenv(core.SEARCH_OFF_VARIABLE, value)
        nodes[value] = core.new_searcher("AlphaBeta", 8).search(Position(fen), SearchLimits(depth=8)).nodes
    assert nodes[""] != nodes["null_move, late_move_pruning"]
    # KESTREL_SEARCH_ON (for a candidate that is off by default) wins over KESTREL_SEARCH_OFF.
    monkeypatch.setenv(core.SEARCH_ON_VARIABLE, "late_move_pruning")
    switched_back = core.new_searcher("AlphaBeta", 8).search(Position(fen), SearchLimits(depth=8)).nodes
    assert switched_back != nodes["null_move, late_move_pruning"]
    monkeypatch.setenv(core.SEARCH_ON_VARIABLE, "")
    monkeypatch.setenv(core.SEARCH_OFF_VARIABLE, "null_move")
    assert switched_back == core.new_searcher("AlphaBeta", 8).search(Position(fen), SearchLimits(depth=8)).nodes
    monkeypatch.setenv(core.SEARCH_OFF_VARIABLE, "no_such_technique")
    with pytest.raises(ValueError, match="KESTREL_SEARCH_OFF"):
        core.new_searcher("AlphaBeta", 8)
