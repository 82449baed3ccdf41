"""Playing with people and bots: Chess960, strength levels, tablebases, WDL, pondering,
unknown tokens, stoppable perft and bench, and lichess-bot's default configuration."""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

import chess
import chess.engine
import chess.syzygy
import pytest
from conftest import ENGINE_COMMAND, REPO, STOCKFISH, UciProcess, info_strings

from search.info import SearchInfo, SearchResult
from uci_engine.strength import FULL_STRENGTH_ELO, MIN_ELO, elo_for_skill, level_for_elo
from uci_engine.wdl import wdl_per_mille

SYZYGY = REPO.parent / "shared" / "data" / "syzygy"


def answer(engine: UciProcess, *lines: str) -> list[str]:
    engine.send(*lines)
    return engine.ready()


# ---------------------------------------------------------------- Chess960

@pytest.mark.slow
def test_chess960_games_through_python_chess(kestrel: chess.engine.SimpleEngine) -> None:
    """Whole games from many of the 960 start positions, python-chess as the client (it sets
    UCI_Chess960 and checks every move); castling is played in several of them."""
    rng = random.Random(960)
    castled = 0
    for number in rng.sample(range(960), 8):
        board = chess.Board.from_chess960_pos(number)
        kestrel.configure({"Clear Hash": None})
        while not board.is_game_over(claim_draw=True) and board.ply() < 120:
            result = kestrel.play(board, chess.engine.Limit(nodes=1500))
            assert result.move in board.legal_moves, (number, board.fen())
            castled += board.is_castling(result.move)
            board.push(result.move)
    assert castled >= 2


def test_castling_notation_follows_uci_chess960(engine: UciProcess) -> None:
    ready = "position startpos moves e2e4 e7e5 g1f3 b8c6 f1c4 g8f6"
    # Standard chess: the king's two-square move.
    engine.send(ready, "go depth 2 searchmoves e1g1")
    assert engine.read_until(lambda text: text.startswith("bestmove"))[-1].split()[1] == "e1g1"
    # Chess960: the king takes its own rook, out and in.
    answer(engine, "setoption name UCI_Chess960 value true")
    engine.send(ready, "go depth 2 searchmoves e1h1")
    assert engine.read_until(lambda text: text.startswith("bestmove"))[-1].split()[1] == "e1h1"
    lines = answer(engine, ready + " e1h1", "d")
    assert any("Fen: r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQ1RK1 b" in text for text in lines)
    fen = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9"
    engine.send(f"position fen {fen}", "go depth 3")
    move = engine.read_until(lambda text: text.startswith("bestmove"))[-1].split()[1]
    assert chess.Move.from_uci(move) in chess.Board(fen, chess960=True).legal_moves


def test_chess960_input_without_the_option_is_reported_and_handled(engine: UciProcess) -> None:
    notes = info_strings(answer(engine, "position startpos moves e2e4 e7e5 g1f3 b8c6 f1c4 g8f6 e1h1"))
    assert any("Chess960 castling notation" in note for note in notes)
    engine.send("d")
    assert any("Fen: r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQ1RK1 b kq" in line for line in engine.ready())
    fen = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9"
    notes = info_strings(answer(engine, f"position fen {fen}"))
    assert any("playing it as Chess960" in note for note in notes)
    engine.send("go depth 3")
    move = engine.read_until(lambda line: line.startswith("bestmove"))[-1].split()[1]
    assert chess.Move.from_uci(move) in chess.Board(fen, chess960=True).legal_moves


# ---------------------------------------------------------------- strength levels

def test_levels_weaken_steadily_and_skill_maps_onto_elo() -> None:
    levels = [level_for_elo(elo) for elo in range(MIN_ELO, FULL_STRENGTH_ELO, 25)]
    assert all(level is not None for level in levels)
    for earlier, later in zip(levels, levels[1:], strict=False):
        assert earlier and later
        assert earlier.nodes < later.nodes                 # sees further as the level rises ...
        assert earlier.temperature >= later.temperature    # ... and strays less, and less far
        assert earlier.margin >= later.margin and earlier.lines >= later.lines
    assert level_for_elo(FULL_STRENGTH_ELO) is None   # the range ends at full strength
    assert level_for_elo(5) == level_for_elo(MIN_ELO)
    assert level_for_elo(FULL_STRENGTH_ELO - 1) is not None
    assert elo_for_skill(0) == MIN_ELO and elo_for_skill(20) == FULL_STRENGTH_ELO
    assert [elo_for_skill(s) for s in range(21)] == sorted(elo_for_skill(s) for s in range(21))
    steps = [b - a for a, b in zip(map(elo_for_skill, range(20)), map(elo_for_skill, range(1, 21)), strict=True)]
    assert max(steps) - min(steps) <= 1                    # Skill Level spreads evenly over the curve


def test_the_range_runs_into_full_strength_without_a_step() -> None:
    """From one UCI_Elo to the next every setting moves a little, up to the top: the level just below
    it searches as full strength does (the same switches, one line, about the same nodes)."""
    from uci_engine.strength import CURVE, LEVEL_SWITCHES, level_switches

    levels = [level_for_elo(elo) for elo in range(MIN_ELO, FULL_STRENGTH_ELO)]
    for lower, upper in zip(levels, levels[1:], strict=False):
        assert lower and upper
        assert 1 <= upper.nodes / lower.nodes < 1.03
        assert abs(upper.temperature - lower.temperature) < 0.2 and abs(upper.margin - lower.margin) < 1
        assert upper.lines in (lower.lines, lower.lines - 1)
    last = levels[-1]
    full = {"singular_extension": True, "correction_history": True, "null_move": True}
    assert last and last.lines == 1 and last.temperature < 0.1 and last.nodes > 0.99 * CURVE[-1].nodes
    assert level_switches(last, full) == full                          # no switch flips at the top
    assert level_switches(levels[0], full) == full | LEVEL_SWITCHES    # and the bottom searches as measured
    assert all(level_for_elo(elo_for_skill(skill)) for skill in range(20)) and level_for_elo(elo_for_skill(20)) is None


def test_the_levels_grow_stronger_at_their_node_budgets() -> None:
    """The expected share of tactics each level finds (ECM's first positions; the chance of playing
    the key move, from the level's own search and choice) rises with the level.  Each level searches
    as the engine plays it (strength.new_level_searcher and search_at_level: its switches, one
    thread, the Hash default, a cleared table a position).  The levels up to about 30,000 nodes, so
    that CI can afford them; the games of docs/play.md cover the rest.  160 positions, since on 40
    two neighbouring levels (2,068 and 6,713 nodes) once came out in either order (kestrel-7: 9.3
    against 8.5).  With kestrel-8 and the curve of round levels11-k8 the four levels (419, 1,404,
    6,815 and 28,856 nodes) find 24.6, 29.8, 41.0 and 81.3 of the 160."""
    from eval.networks import builtin_network
    from search.board.position import Position
    from search.limits import SearchLimits
    from tools.tactics import read_suite
    from uci_engine.strength import new_level_searcher, search_at_level

    suite = read_suite(REPO.parent / "shared" / "data" / "ecm.epd", 160)
    network = builtin_network()
    elos = [elo for elo in range(MIN_ELO, FULL_STRENGTH_ELO, 10)
            if (level := level_for_elo(elo)) and level.nodes <= 30_000]
    expected = []
    for elo in (elos[0], elos[len(elos) // 3], elos[2 * len(elos) // 3], elos[-1]):
        level = level_for_elo(elo)
        assert level is not None
        searcher = new_level_searcher(level, network)
        found = 0.0
        for board, ops in suite:
            searcher.clear()
            _, lines = search_at_level(searcher, Position(board.fen()), SearchLimits(), level, random.Random(0))
            keys = {move.uci() for move in ops["bm"]} if isinstance(ops.get("bm"), list) else set()
            found += sum(chance for each, chance in zip(lines, level.chances(lines), strict=True)
                         if each.pv and each.pv[0] in keys)
        expected.append(found)
    assert expected == sorted(expected) and expected[0] < expected[-1] - 3, expected


def line(multipv: int, cp: int, move: str) -> SearchInfo:
    return SearchInfo(depth=4, seldepth=4, multipv=multipv, score=("cp", cp), nodes=100, nps=1, hashfull=0,
                      time=1, pv=[move, "e7e5"])


def test_a_weak_level_never_plays_a_move_beyond_its_margin() -> None:
    level = level_for_elo(MIN_ELO)
    assert level is not None
    lines = [line(1, 50, "e2e4"), line(2, 30, "d2d4"), line(3, 50 - int(level.margin) - 1, "g2g4")]
    result = SearchResult("e2e4", "e7e5", ("cp", 50), 4, 100, ["e2e4", "e7e5"], 50)
    rng = random.Random(1)
    chosen = [level.choose(result, lines, rng).best_move for _ in range(400)]
    assert "g2g4" not in chosen                        # more than the margin worse: never
    assert chosen.count("d2d4") > 20                   # a little worse: sometimes, at a low level
    assert chosen.count("e2e4") > chosen.count("d2d4")
    strong = level_for_elo(FULL_STRENGTH_ELO - 100)
    assert strong is not None
    picks = [strong.choose(result, lines, rng).best_move for _ in range(400)]
    assert picks.count("d2d4") < chosen.count("d2d4")  # a strong level strays less


def test_limited_strength_searches_less_and_answers_legally(engine: UciProcess) -> None:
    answer(engine, "setoption name UCI_LimitStrength value true", f"setoption name UCI_Elo value {MIN_ELO}",
           "position startpos moves e2e4 e7e5")
    engine.send("go wtime 60000 btime 60000")
    lines = engine.read_until(lambda text: text.startswith("bestmove"))
    level = level_for_elo(MIN_ELO)
    assert level is not None
    nodes = [int(text.split(" nodes ")[1].split()[0]) for text in lines if " nodes " in text]
    assert nodes and max(nodes) <= level.nodes + 1024     # the search looks at its node count every 1024 nodes
    assert any(" multipv 2 " in text for text in lines)
    board = chess.Board()
    board.push_uci("e2e4")
    board.push_uci("e7e5")
    assert chess.Move.from_uci(lines[-1].split()[1]) in board.legal_moves


def level_search(engine: UciProcess, *setup: str) -> list[str]:
    """The info lines of one search at UCI_Elo 1700 after `setup`, in a fresh game."""
    answer(engine, "setoption name UCI_LimitStrength value true", "setoption name UCI_Elo value 1700", *setup,
           "ucinewgame")
    engine.send("position startpos moves e2e4 c7c5 g1f3", "go wtime 60000 btime 60000")
    lines = engine.read_until(lambda text: text.startswith("bestmove"))
    return [text.split(" nps ")[0] + " pv" + text.split(" pv")[-1] for text in lines if " pv " in text]


def test_a_level_searches_alike_with_any_threads_and_in_mcts_mode(engine: UciProcess) -> None:
    """A level searches on one alpha-beta thread, so its play does not hang on thread timing:
    the same lines with Threads 1, with Threads 4 and with SearchMode MCTS set."""
    single = level_search(engine)
    assert single and any(" multipv 2 " in text for text in single)
    assert level_search(engine, "setoption name Threads value 4") == single
    notes = info_strings(engine.seen)
    assert any("one thread" in note and "Threads 4" in note for note in notes)
    assert level_search(engine, "setoption name SearchMode value MCTS") == single
    assert any("SearchMode MCTS" in note for note in info_strings(engine.seen))
    # Full strength again: Threads 4 and MCTS apply (MCTS reports no multipv lines of its own).
    answer(engine, "setoption name UCI_LimitStrength value false", "setoption name SearchMode value AlphaBeta")
    engine.send("position startpos", "go nodes 20000")
    assert engine.read_until(lambda text: text.startswith("bestmove"))


@pytest.mark.parametrize("go", ["go wtime 300 btime 300", "go wtime 0 btime 0 winc 100 binc 100",
                                "go movetime 30", "go wtime 40 btime 40 winc 10 binc 10"])
@pytest.mark.serial(cores=1)
def test_every_level_answers_within_its_clock(engine: UciProcess, go: str) -> None:
    """Short clocks, increment only and movetime: a level answers in time at every number."""
    for elo in (MIN_ELO, 1800, FULL_STRENGTH_ELO - 1):
        answer(engine, "setoption name UCI_LimitStrength value true", f"setoption name UCI_Elo value {elo}")
        engine.send("position startpos moves d2d4 g8f6 c2c4", go)
        started = time.monotonic()
        lines = engine.read_until(lambda text: text.startswith("bestmove"))
        budget = 0.3 if "movetime" not in go else 0.03
        assert time.monotonic() - started < budget + 0.4, (elo, go)     # the budget, and the pipe's slack
        assert lines[-1].split()[1] != "0000"


@pytest.mark.serial(cores=1)
def test_a_weak_level_moves_at_once_on_a_long_clock(engine: UciProcess) -> None:
    """A weak player does not think for seconds about a move it plays at once: the level's node
    budget ends its search long before the clock would."""
    answer(engine, "setoption name UCI_LimitStrength value true", f"setoption name UCI_Elo value {MIN_ELO + 100}")
    engine.send("position startpos moves e2e4 e7e5 g1f3", "go wtime 600000 btime 600000 winc 5000 binc 5000")
    started = time.monotonic()
    engine.read_until(lambda text: text.startswith("bestmove"))
    assert time.monotonic() - started < 1.0


# ---------------------------------------------------------------- tablebases

@pytest.mark.parametrize("fen", ["8/8/8/8/8/2k5/8/KQ6 w - - 0 1", "8/8/4k3/8/8/8/8/4K1NB w - - 0 1",
                                 "8/8/3k4/8/8/8/2K5/R7 w - - 0 1"])
def test_tablebase_wins_are_played_from_the_tables(engine: UciProcess, fen: str) -> None:
    notes = info_strings(answer(engine, f"setoption name SyzygyPath value {SYZYGY}"))
    assert any("tables up to" in note for note in notes)
    engine.send(f"position fen {fen}", "go wtime 5000 btime 5000")
    lines = engine.read_until(lambda text: text.startswith("bestmove"))
    assert any(" tbhits " in text and " score cp 20000 " in text for text in lines)
    move = lines[-1].split()[1]
    with chess.syzygy.open_tablebase(str(SYZYGY)) as tables:
        board = chess.Board(fen)
        board.push_uci(move)
        assert tables.probe_wdl(board) == -2          # the move keeps the win


@pytest.mark.serial(cores=1)
def test_a_short_clock_is_not_spent_on_a_root_probe(engine: UciProcess) -> None:
    """KQ v KR: python-chess's root probe reads DTZ for some 27 moves (0.1-0.25 s); with under a
    second left and 0.1 s a move it cost two won games on time, so the search plays such a move."""
    answer(engine, f"setoption name SyzygyPath value {SYZYGY}")
    # With the clock full the tables play the move, and the probe is timed.
    engine.send("position fen 8/4kr2/8/8/3K4/8/8/6Q1 w - - 0 1", "go wtime 10000 btime 10000 winc 100 binc 100")
    lines = engine.read_until(lambda text: text.startswith("bestmove"))
    assert any(" score cp 20000 " in text and " nodes 0 " in text for text in lines)
    # With 0.1 s left (no increment) the move's share is 10 ms, less than that probe took.
    engine.send("position fen 8/4kr2/8/8/3K4/8/8/6Q1 w - - 0 1", "go wtime 100 btime 100")
    lines = engine.read_until(lambda text: text.startswith("bestmove"))
    assert any("tablebases: the root probe" in note and "searching" in note for note in info_strings(lines))
    assert not any(" score cp 20000 " in text and " nodes 0 " in text for text in lines)
    assert chess.Move.from_uci(lines[-1].split()[1]) in chess.Board("8/4kr2/8/8/3K4/8/8/6Q1 w - - 0 1").legal_moves
    # Beyond the tables nothing is said of them, however short the clock.
    engine.send("position startpos", "go wtime 100 btime 100")
    lines = engine.read_until(lambda text: text.startswith("bestmove"))
    assert not any(note.startswith("tablebases") for note in info_strings(lines))


@pytest.mark.slow
@pytest.mark.parametrize("fen,kestrel_white,expected", [
    ("8/8/8/3k4/8/8/3K4/5QR1 w - - 0 1", True, "1-0"),      # KQR v K: mate, straight from the tables
    ("8/8/3k4/8/8/8/2K5/R7 w - - 0 1", True, "1-0"),        # KR v K
    ("8/8/4k3/8/8/8/8/4K1NB w - - 0 1", True, "1-0"),       # KBN v K, the hard one: within the 50 moves
    ("8/8/8/8/4k3/8/4P3/4K3 b - - 0 1", False, "1/2-1/2"),  # K v KP held by the defender
])
def test_tablebase_endgames_are_won_or_held_exactly(fen: str, kestrel_white: bool, expected: str) -> None:
    kestrel = chess.engine.SimpleEngine.popen_uci(ENGINE_COMMAND, cwd=REPO, timeout=30)
    stockfish = chess.engine.SimpleEngine.popen_uci(STOCKFISH, timeout=30)
    try:
        kestrel.configure({"SyzygyPath": str(SYZYGY)})
        board = chess.Board(fen)
        while not board.is_game_over(claim_draw=True) and board.ply() < 240:
            ours = board.turn == (chess.WHITE if kestrel_white else chess.BLACK)
            engine = kestrel if ours else stockfish
            board.push(engine.play(board, chess.engine.Limit(time=0.05)).move)
        assert board.result(claim_draw=True) == expected, board.fen()
    finally:
        kestrel.quit()
        stockfish.quit()


# Five men, so the root is beyond the tables; Qxb5+ leaves K+Q+P v K, a win the tables know.
WIN_BY_A_CAPTURE = "4k3/8/8/1r6/Q7/8/5P2/4K3 w - - 0 1"


def last_score_and_tbhits(lines: list[str]) -> tuple[int, int]:
    scored = [line.split() for line in lines if " score cp " in line and " pv " in line]
    words = scored[-1]
    tbhits = int(words[words.index("tbhits") + 1]) if "tbhits" in words else 0
    return int(words[words.index("cp") + 1]), tbhits


@pytest.mark.parametrize("threads", [1, 2])
def test_the_search_probes_the_tables_inside_the_tree(engine: UciProcess, threads: int) -> None:
    engine.send(f"setoption name Threads value {threads}", f"position fen {WIN_BY_A_CAPTURE}", "go depth 6")
    lines = engine.read_until(lambda text: text.startswith("bestmove"))
    without_tables, hits = last_score_and_tbhits(lines)
    assert without_tables < 5000 and hits == 0          # an ordinary evaluation: a queen up
    answer(engine, f"setoption name SyzygyPath value {SYZYGY}", "ucinewgame")
    engine.send(f"position fen {WIN_BY_A_CAPTURE}", "go depth 6")
    lines = engine.read_until(lambda text: text.startswith("bestmove"))
    with_tables, hits = last_score_and_tbhits(lines)
    assert with_tables >= 19_000 and hits > 0            # a tablebase win, found inside the tree
    assert lines[-1].split()[1] == "a4b5"
    # With SyzygyProbeLimit 3 the four-man win is not probed (three-man positions still are).
    answer(engine, "setoption name SyzygyProbeLimit value 3", "ucinewgame")
    engine.send(f"position fen {WIN_BY_A_CAPTURE}", "go depth 6")
    limited, _ = last_score_and_tbhits(engine.read_until(lambda text: text.startswith("bestmove")))
    assert limited < 5000


def test_a_failing_prober_never_stops_the_search() -> None:
    from search.alphabeta_searcher import AlphaBetaSearcher
    from search.board.position import Position
    from search.limits import SearchLimits

    calls: list[str] = []

    def broken(fen: str) -> int | None:
        calls.append(fen)
        raise OSError("damaged table")

    searcher = AlphaBetaSearcher(hash_mb=8)
    searcher.set_tablebase_probe(broken, 1, 4)
    infos: list[object] = []
    result = searcher.search(Position(WIN_BY_A_CAPTURE), SearchLimits(depth=6), infos.append)
    assert calls                                          # probes were tried, and failed
    assert result.best_move == "a4b5" and result.value < 5000
    assert [i.tbhits for i in infos if isinstance(i, SearchInfo)][-1] == 0


def test_bad_syzygy_paths_are_reported_and_harmless(engine: UciProcess, tmp_path: Path) -> None:
    not_a_folder = tmp_path / "file.txt"
    not_a_folder.write_text("no tables here")
    damaged = tmp_path / "damaged"
    damaged.mkdir()
    (damaged / "KQvK.rtbw").write_bytes(b"\x00" * 64)
    for path, expected in [(str(not_a_folder), "is not a folder"), ("/no/such/folder", "is not a folder"),
                           (str(tmp_path), "no Syzygy tables")]:
        notes = info_strings(answer(engine, f"setoption name SyzygyPath value {path}"))
        assert any(expected in note for note in notes), notes
    answer(engine, f"setoption name SyzygyPath value {damaged}")
    engine.send("position fen 8/8/8/8/8/2k5/8/KQ6 w - - 0 1", "go depth 4")
    move = engine.read_until(lambda text: text.startswith("bestmove"))[-1].split()[1]
    assert chess.Move.from_uci(move) in chess.Board("8/8/8/8/8/2k5/8/KQ6 w - - 0 1").legal_moves
    assert info_strings(answer(engine, "setoption name SyzygyPath value <empty>")) == []


# ---------------------------------------------------------------- WDL

def test_wdl_model_is_a_distribution_that_grows_with_the_score() -> None:
    for material in (10, 40, 78):
        previous = -1
        for cp in range(-800, 801, 50):
            win, draw, loss = wdl_per_mille(("cp", cp), material)
            assert win + draw + loss == 1000 and min(win, draw, loss) >= 0
            assert win >= previous
            previous = win
        assert wdl_per_mille(("cp", 0), material)[0] == wdl_per_mille(("cp", 0), material)[2]
    assert wdl_per_mille(("mate", 3), 40) == (1000, 0, 0) and wdl_per_mille(("mate", -2), 40) == (0, 0, 1000)


def test_show_wdl_adds_wdl_to_info_lines(engine: UciProcess) -> None:
    answer(engine, "setoption name UCI_ShowWDL value true", "position startpos")
    engine.send("go depth 5")
    lines = [text for text in engine.read_until(lambda t: t.startswith("bestmove")) if " pv " in text]
    assert lines and all(" wdl " in text for text in lines)
    win, draw, loss = (int(x) for x in lines[-1].split(" wdl ")[1].split()[:3])
    assert win + draw + loss == 1000


# ---------------------------------------------------------------- ponder, tokens, jobs

def test_ponder_off_waits_for_ponderhit_without_thinking(engine: UciProcess) -> None:
    answer(engine, "setoption name Ponder value false", "position startpos moves e2e4")
    engine.send("go ponder wtime 5000 btime 5000")
    quiet = engine.drain(0.6)
    assert not [text for text in quiet if text.startswith("info depth")]   # no search before the ponderhit
    engine.send("ponderhit")
    lines = engine.read_until(lambda text: text.startswith("bestmove"))
    assert any(text.startswith("info depth") for text in lines)
    # A ponder miss: stop, then the real position; nothing is lost.
    engine.send("position startpos moves e2e4 e7e5", "go ponder wtime 5000 btime 5000")
    engine.send("stop")
    engine.read_until(lambda text: text.startswith("bestmove"))
    engine.send("position startpos moves e2e4 c7c5", "go wtime 5000 btime 5000")
    move = engine.read_until(lambda text: text.startswith("bestmove"))[-1].split()[1]
    board = chess.Board()
    for uci in ("e2e4", "c7c5"):
        board.push_uci(uci)
    assert chess.Move.from_uci(move) in board.legal_moves


def test_unknown_tokens_before_a_command_are_skipped(engine: UciProcess) -> None:
    notes = info_strings(answer(engine, "joho debug on"))
    assert notes == ["skipped unknown 'joho' before debug"]
    engine.send("position startpos", "go depth 1")
    lines = engine.read_until(lambda text: text.startswith("bestmove"))
    assert any(text.startswith("info string go: ") for text in lines)     # debug is on
    assert info_strings(answer(engine, "xyzzy plugh"))[0].startswith("unknown command 'xyzzy'")


def test_go_perft_and_bench_are_stoppable_jobs(engine: UciProcess) -> None:
    engine.send("position startpos", "go perft 12")
    start = time.monotonic()
    assert not [text for text in engine.ready(timeout=5) if text.startswith("Nodes")]   # readyok while it runs
    engine.send("stop")
    lines = engine.read_until(lambda text: text.startswith("Nodes searched"), timeout=10)
    assert any("perft stopped" in text for text in lines)
    engine.send("bench 30")
    assert not [text for text in engine.ready(timeout=5) if text.startswith("Nodes")]
    engine.send("stop")
    lines = engine.read_until(lambda text: text.startswith("Nodes/second"), timeout=10)
    assert any("bench stopped" in text for text in lines)
    assert time.monotonic() - start < 20
    engine.send("go perft 3")
    assert engine.read_until(lambda text: text.startswith("Nodes searched"))[-1] == "Nodes searched: 8902"


# ---------------------------------------------------------------- lichess-bot

LICHESS_BOT_DEFAULT_UCI_OPTIONS = {"Move Overhead": 100, "Threads": 4, "Hash": 512, "SyzygyPath": "./syzygy/",
                                   "UCI_ShowWDL": True}


@pytest.mark.slow
def test_lichess_bot_default_config_is_accepted_and_plays(tmp_path: Path) -> None:
    """lichess-bot's own config.yml.default uci_options, applied as lichess-bot does
    (python-chess configure), then a game with pondering."""
    from test_uci_python_chess import readme_lichess_bot_engine_section

    section = readme_lichess_bot_engine_section()
    assert section["uci_options"] == LICHESS_BOT_DEFAULT_UCI_OPTIONS
    engine = chess.engine.SimpleEngine.popen_uci([sys.executable, str(REPO / "uci_engine")], cwd=tmp_path,
                                                 timeout=30)
    try:
        engine.configure(section["uci_options"])
        board = chess.Board()
        game = object()
        while not board.is_game_over() and board.ply() < 16:
            limit = chess.engine.Limit(white_clock=5, black_clock=5, white_inc=0.05, black_inc=0.05)
            result = engine.play(board, limit, game=game, ponder=section["ponder"], info=chess.engine.INFO_ALL)
            assert result.move in board.legal_moves
            board.push(result.move)
    finally:
        engine.quit()


@pytest.mark.serial(cores=1)
@pytest.mark.slow
def test_a_level_set_through_lichess_bot_uci_options_plays_a_game(tmp_path: Path) -> None:
    """lichess-bot's `uci_options` with a level (UCI_LimitStrength, UCI_Elo 1700) next to its
    defaults, applied through python-chess: a whole short game, every move legal and quick."""
    options = {**LICHESS_BOT_DEFAULT_UCI_OPTIONS, "UCI_LimitStrength": True, "UCI_Elo": 1700}
    level = level_for_elo(1700)
    assert level is not None
    engine = chess.engine.SimpleEngine.popen_uci([sys.executable, str(REPO / "uci_engine")], cwd=tmp_path,
                                                 timeout=30)
    try:
        engine.configure(options)
        board = chess.Board()
        game = object()
        while not board.is_game_over() and board.ply() < 40:
            limit = chess.engine.Limit(white_clock=60, black_clock=60, white_inc=1, black_inc=1)
            started = time.monotonic()
            result = engine.play(board, limit, game=game, info=chess.engine.INFO_ALL)
            assert time.monotonic() - started < 2.0      # its node budget, not a 60 s clock's share
            assert result.move in board.legal_moves
            assert result.info.get("nodes", 0) <= level.nodes + 1024     # the level was applied
            board.push(result.move)
        with pytest.raises(chess.engine.EngineError):     # the range ends where full strength begins
            engine.configure({"UCI_Elo": FULL_STRENGTH_ELO + 1})
    finally:
        engine.quit()
