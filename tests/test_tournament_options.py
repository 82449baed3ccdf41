"""The fastchess/cutechess-cli options without engines: help text, schedules, Chess960, tablebases, output."""

import math
import re
import struct
import sys

import chess
import pytest
from conftest import SHARED_DATA

from tournaments.adjudication import open_tablebase, tablebase_verdict
from tournaments.cli import OPTION_SPECS, OPTIONS, USAGE, build_config, split_options
from tournaments.config import ConfigError, OpeningsConfig, SprtConfig
from tournaments.game import move_comment
from tournaments.openings import chess960_openings, load_openings, validate
from tournaments.plot import llr_history, write_plot
from tournaments.report import Progress, fastchess_lines
from tournaments.runner import schedule
from tournaments.sprt import sprt_status
from tournaments.state import FinishedGame
from tournaments.stats import tally_results

SYZYGY = str(SHARED_DATA / "syzygy")
BASE = ["-engine", "cmd=a", "-engine", "cmd=b", "-each", "tc=1"]


def config_of(*words):
    config, _ = build_config(split_options([*BASE, *words]))
    config.validate()
    return config


# --- one definition of the options ------------------------------------------------------------------

def test_help_and_parser_come_from_one_table():
    shown = {line.split()[0][1:] for line in USAGE.splitlines() if line.startswith("  -")}
    assert shown == {spec.names[0] for spec in OPTION_SPECS}
    for spec in OPTION_SPECS:
        for alias in spec.names[1:]:
            assert f"-{alias}" in USAGE
    assert OPTIONS == {name for spec in OPTION_SPECS for name in spec.names}
    for name in ("backend", "variant", "epdout", "tb", "tbpieces", "tbignore50", "noswap", "reverse", "wait",
                 "log", "output"):
        assert name in OPTIONS
    # A word the table does not know is not an option: it lands among the previous option's values.
    with pytest.raises(ConfigError, match="expected key=value, got '-nosuchoption'"):
        build_config(split_options([*BASE, "-nosuchoption"]))


def test_new_options_parse():
    c = config_of("-backend", "dask", "tcp://h:8786", "scaletc", "-variant", "fischerandom", "-epdout", "e.epd",
                  "-tb", SYZYGY, "-tbpieces", "4", "-tbignore50", "-noswap", "-wait", "25", "-log", "x.log",
                  "-output", "format=fastchess", "-openings", "policy=round",
                  "-pgnout", "file=o.pgn", "nodes=true", "nps=true", "seldepth=false", "min=false")
    assert (c.backend, c.scheduler, c.scale_tc) == ("dask", "tcp://h:8786", True)
    assert (c.variant, c.epdout, c.tb_path, c.tb_pieces, c.tb_ignore50) == ("fischerandom", "e.epd", SYZYGY, 4, True)
    assert (c.noswap, c.reverse, c.wait_ms, c.log, c.output) == (True, False, 25, "x.log", "fastchess")
    assert c.openings.policy == "round" and (c.pgnout, c.pgn_min, c.pgn_extras) == ("o.pgn", False, ["nodes", "nps"])
    assert config_of("-pgnout", "g.pgn", "min").pgn_min
    for bad in (["-backend", "dask"], ["-backend", "slurm"], ["-variant", "atomic"], ["-openings", "policy=x"],
                ["-output", "format=pgn"], ["-pgnout", "g.pgn", "depth=true"], ["-noswap", "yes"]):
        with pytest.raises(ConfigError):
            config_of(*bad)


# --- schedules: colours and opening policies, worked out by hand ----------------------------------

def _games(*words, openings=10):
    return [(g.white, g.black, g.opening) for g in schedule(config_of(*words), openings)]


def test_noswap_and_reverse():
    assert _games("-games", "4") == [("a", "b", 0), ("b", "a", 0), ("a", "b", 1), ("b", "a", 1)]
    assert _games("-games", "4", "-noswap") == [("a", "b", 0), ("a", "b", 0), ("a", "b", 1), ("a", "b", 1)]
    assert _games("-games", "2", "-reverse") == [("b", "a", 0), ("a", "b", 0)]
    assert _games("-games", "2", "-reverse", "-noswap") == [("b", "a", 0), ("b", "a", 0)]


def test_opening_policies():
    three = ["-engine", "cmd=c", "-games", "4", "-rounds", "2"]
    openings = {policy: [g[2] for g in _games(*three, "-openings", f"policy={policy}")]
                for policy in ("default", "encounter", "round")}
    # 3 encounters (a-b, a-c, b-c) x 4 games x 2 rounds; pairs are games (0,1), (2,3), ...
    assert openings["default"] == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 0, 0, 1, 1]
    assert openings["encounter"] == [0] * 4 + [1] * 4 + [2] * 4 + [3] * 4 + [4] * 4 + [5] * 4
    assert openings["round"] == [0] * 12 + [1] * 12
    assert [g[2] for g in _games("-games", "2", "-rounds", "3", "-openings", "policy=round", openings=2)] == \
        [0, 0, 1, 1, 0, 0]


# --- Chess960 ----------------------------------------------------------------------------------------

def test_the_960_start_positions():
    positions = chess960_openings()
    assert len({o.fen for o in positions}) == 960
    assert positions[518].fen == chess.STARTING_FEN and not positions[518].from_start  # Chess960 rules still
    for opening in positions[::97]:
        board = opening.board()
        assert board.chess960 and board.is_valid() and bin(board.castling_rights).count("1") == 4
    shuffled = load_openings(OpeningsConfig(order="random"), seed=4, variant="fischerandom")
    assert shuffled == load_openings(OpeningsConfig(order="random"), seed=4, variant="fischerandom")
    assert shuffled != positions and sorted(o.fen for o in shuffled) == sorted(o.fen for o in positions)


def test_a_chess960_book_in_a_standard_match_is_refused(tmp_path):
    book = tmp_path / "960.epd"
    book.write_text("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9\n")
    opening = load_openings(OpeningsConfig(file=str(book)), seed=1)[0]
    with pytest.raises(ConfigError, match="Chess960 position.*-variant fischerandom"):
        validate(opening)
    chess960 = load_openings(OpeningsConfig(file=str(book)), seed=1, variant="fischerandom")[0]
    validate(chess960)
    assert chess960.board().has_chess960_castling_rights()


def test_bad_books_stop_the_run_before_any_engine_starts(tmp_path, capsys):
    from tournaments.__main__ import main
    book = tmp_path / "illegal.pgn"
    book.write_text('[Event "x"]\n\n1. e4 e5 2. Ke3 *\n')
    assert main([*BASE, "-openings", f"file={book}"]) == 2
    assert "illegal" in capsys.readouterr().err
    book960 = tmp_path / "960.epd"
    book960.write_text("nrkbbqrn/pppppppp/8/8/8/8/PPPPPPPP/NRKBBQRN w GBgb - 0 1\n")
    assert main([*BASE, "-openings", f"file={book960}"]) == 2
    assert "-variant fischerandom" in capsys.readouterr().err
    assert main([*BASE, "-tb", str(tmp_path)]) == 2
    assert "no Syzygy tables" in capsys.readouterr().err


# --- tablebase adjudication ----------------------------------------------------------------------

@pytest.mark.debian
def test_tablebase_verdicts():
    tb = open_tablebase(SYZYGY)
    rook = chess.Board("8/8/8/4k3/8/8/8/R3K3 b - - 0 1")
    assert tablebase_verdict(rook, tb, 7, False).reason == "White wins by tablebase"
    assert tablebase_verdict(rook, tb, 2, False) is None  # more pieces than -tbpieces
    knight = chess.Board("8/8/8/4k3/8/8/8/N3K3 w - - 0 1")
    assert tablebase_verdict(knight, tb, 7, False).result == "1/2-1/2"
    black_queen = chess.Board("8/8/8/4k3/8/3q4/8/4K3 w - - 0 1")
    assert tablebase_verdict(black_queen, tb, 7, False).result == "0-1"
    six = chess.Board("8/8/1r6/4k3/8/2Q5/2R5/4K3 w - - 0 1")
    assert tablebase_verdict(six, tb, 7, False) is None  # no 6-piece tables here: no verdict, no error
    assert tablebase_verdict(chess.Board(), tb, 32, False) is None  # castling rights: never probed

    class Cursed:  # a cursed win: a win that the fifty-move rule turns into a draw
        def probe_wdl(self, board):
            return 1

    assert tablebase_verdict(rook, Cursed(), 7, False).result == "1/2-1/2"
    assert tablebase_verdict(rook, Cursed(), 7, True).result == "0-1"  # Black to move "wins" with -tbignore50
    with pytest.raises(ConfigError, match="not a folder"):
        open_tablebase("/nonexistent/syzygy")


# --- what is written ------------------------------------------------------------------------------

def test_move_comment_with_fastchess_fields():
    score = chess.engine.PovScore(chess.engine.Cp(35), chess.WHITE)
    assert move_comment(score, chess.WHITE, 12, 0.25) == "+0.35/12 0.250s"
    assert move_comment(score, chess.BLACK, 12, 0.25, {"n": "900", "sd": "18"}) == \
        "-0.35/12 0.250s, n=900, sd=18"


def _finished(results):
    return [FinishedGame(i, i // 2, 1, "A" if i % 2 == 0 else "B", "B" if i % 2 == 0 else "A", 0, r, "normal", "", 10)
            for i, r in enumerate(results)]


def test_fastchess_result_block_by_hand():
    config = config_of("-sprt", "elo0=0", "elo1=10", "-each", "option.Threads=1")
    config.engines[0].name, config.engines[1].name = "A", "B"
    # A's pairs: W+D (1.5), W+W (2), D+D (1), L+D (0.5); "0-1" in game 3 is A's win as Black.
    lines = fastchess_lines(config, _finished(["1-0", "1/2-1/2", "1-0", "0-1", "1/2-1/2", "1/2-1/2", "0-1",
                                               "1/2-1/2"]), {"A": {"Hash": "16"}})
    assert lines[1] == "Results of A vs B (1, 1t, 16MB - NULL):"  # Hash: A's declared default, B has none
    # Pair means 0.75, 1, 0.5, 0.25: score 0.625, variance 0.078125 per pair, 95% half-width
    # 1.96 sqrt(0.078125 / 4) = 0.2739; Elo -400 log10(1 / 0.625 - 1) = 88.74, nElo = 0.125 / sqrt(0.15625)
    # * 800 / ln 10 = 109.87, LOS = (1 - erf(-0.125 / sqrt(2 * 0.0195)) / 2 = 81.45 %.
    assert lines[2] == "Elo: 88.74 +/- 243.16, nElo: 109.87 +/- 240.76"
    assert lines[3] == "LOS: 81.45 %, DrawRatio: 25.00 %, PairsRatio: 2.00"
    assert lines[4] == "Games: 8, Wins: 3, Losses: 1, Draws: 4, Points: 5.0 (62.50 %)"
    assert lines[5] == "Ptnml(0-2): [0, 1, 1, 1, 1], WL/DD Ratio: 0.00"
    assert re.fullmatch(r"LLR: -?\d+\.\d\d \(-?\d+\.\d%\) \(-2\.94, 2\.94\) \[0\.00, 10\.00\]", lines[6]), lines[6]
    # One pair, both won: no spread, so the error bars are nan, as fastchess prints them.
    one = fastchess_lines(config, _finished(["1-0", "0-1"]))
    assert one[2] == "Elo: inf +/- nan, nElo: inf +/- nan" and one[5] == "Ptnml(0-2): [0, 0, 0, 0, 1], WL/DD Ratio: nan"


def test_progress_lines_and_live_display(tmp_path):
    import io
    config = config_of("-sprt", "elo0=0", "elo1=10", "-report-every", "2")
    config.engines[0].name, config.engines[1].name = "A", "B"
    stream = io.StringIO()
    progress = Progress(config, 8, stream)
    finished = _finished(["1-0", "0-1"])
    progress.update(finished[:1], finished[0])
    progress.update(finished, finished[1])
    text = stream.getvalue()
    assert "Finished game 2 (B vs A): 0-1" in text
    assert "1/8 games" not in text  # -report-every 2
    assert "2/8 games, A: +2 -0 =0" in text and "LLR" in text and "games/min, ETA" in text
    from tournaments.live import LiveDisplay
    screen = io.StringIO()
    live = LiveDisplay(screen, force_terminal=True)
    progress.running = 2
    live.show(progress.snapshot(finished), "Finished game 2")
    live.close()
    shown = screen.getvalue()
    for word in ("2 done, 2 running, 4 left", "W-L-D 2-0-0", "Elo", "LOS", "LLR", "games/min", "ETA"):
        assert word in shown, word


def test_plot_with_the_llr(tmp_path):
    sprt = SprtConfig(0, 10)
    finished = _finished(["1-0", "0-1", "1-0", "1/2-1/2"] * 5)  # A wins three games of four, draws one
    history = llr_history(finished, "A", sprt)
    last = sprt_status(0, 10, 0.05, 0.05, tally_results([(g.pair, g.white, g.black, g.result) for g in finished],
                                                        "A").pentanomial)
    assert history[-1] == (20, pytest.approx(last.llr)) and history[0][0] == 1
    assert history[-1][1] > history[1][1] > 0  # a winning run: the LLR climbs
    png = tmp_path / "llr.png"
    write_plot(str(png), finished, "A", "B", sprt)
    data = png.read_bytes()
    assert struct.unpack(">II", data[16:24]) == (800, 700)  # the LLR panel makes the figure taller
    assert math.isfinite(last.llr) and sys.modules.get("matplotlib") is not None
