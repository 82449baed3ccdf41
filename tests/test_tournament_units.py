"""Tournament runner pieces that need no engine: statistics, SPRT, clocks, openings, adjudication, CLI."""

import math

import chess
import pytest
from conftest import shared_data_path

from tournaments.adjudication import Adjudicator, rules_verdict
from tournaments.cli import build_config, split_options
from tournaments.config import AdjudicationConfig, ConfigError, OpeningsConfig, TournamentConfig
from tournaments.openings import load_openings, read_epd, read_pgn
from tournaments.plot import PlotUnavailable, elo_history, write_plot
from tournaments.runner import schedule
from tournaments.sprt import llr_logistic, llr_normalized, sprt_status
from tournaments.state import FinishedGame
from tournaments.stats import Tally, elo_from_score, paired_difference, tally_results
from tournaments.timecontrol import Clock, TimeControl, build_limit

# --- statistics, against values worked out by hand --------------------------------------------

def test_elo_interval_and_los_by_hand():
    t = Tally(wins=6, losses=2, draws=2)
    # score 0.7 -> 400 log10(0.7/0.3); per-game sd 0.4, se 0.4/sqrt(10), half-width 1.96 se = 0.247921
    assert t.score == pytest.approx(0.7)
    assert t.elo() == pytest.approx(147.19, abs=0.01)
    elo, low, high = t.elo_interval()
    assert low == pytest.approx(400 * math.log10(0.452079 / 0.547921), abs=0.01)  # -33.40
    assert high == pytest.approx(400 * math.log10(0.947921 / 0.052079), abs=0.05)  # 504.03 (steep near 1)
    assert t.elo_error() == pytest.approx((504.03 + 33.40) / 2, abs=0.02)
    # LOS = 1/2 (1 + erf((W - L) / sqrt(2 (W + L)))) = 1/2 (1 + erf(1))
    assert t.los() == pytest.approx(0.921350, abs=1e-6)
    assert t.draw_ratio == pytest.approx(0.2)


def test_elo_symmetry_and_limits():
    assert elo_from_score(0.5) == 0
    assert elo_from_score(0.25) == pytest.approx(-elo_from_score(0.75))
    assert elo_from_score(1.0) == math.inf and elo_from_score(0.0) == -math.inf
    assert Tally(wins=3).elo_error() == math.inf


def test_normalized_elo_from_pairs_by_hand():
    t = Tally(pentanomial=[1, 2, 5, 3, 1])
    # pair mean 6.25/12, pair variance 4.0625/12 - mean^2 = 0.067274; nElo = (mean-1/2)/sqrt(2 var) * 800/ln10
    assert t.normalized_elo() == pytest.approx(19.733, abs=0.001)


def test_pentanomial_elo_interval_by_hand():
    t = Tally(pentanomial=[1, 2, 5, 3, 1])
    # pair mean 0.520833, pair variance 0.067274 over 12 pairs: half-width 1.96 sqrt(0.067274 / 12) = 0.146754
    elo, low, high = t.penta_elo_interval()
    assert elo == pytest.approx(400 * math.log10(0.520833 / 0.479167), abs=0.01)  # +14.48
    assert low == pytest.approx(400 * math.log10(0.374079 / 0.625921), abs=0.02)  # -89.42
    assert high == pytest.approx(400 * math.log10(0.667587 / 0.332413), abs=0.02)  # +121.13
    assert Tally().penta_elo_interval() == (0.0, -math.inf, math.inf)


def test_paired_difference_by_hand():
    # Four openings: differences 0.5, 0.25, 0, 0.25 (mean 0.25, sample variance 0.125 / 3);
    # half-width 1.96 sqrt(0.041667 / 4) = 0.200037 around the candidate's 0.6875, at the base's 0.4375.
    d = paired_difference([1.0, 0.75, 0.5, 0.5], [0.5, 0.5, 0.5, 0.25])
    assert (d.pairs, d.base_score, d.candidate_score) == (4, 0.4375, 0.6875)
    at_base = 400 * math.log10(0.4375 / 0.5625)
    assert d.elo == pytest.approx(400 * math.log10(0.6875 / 0.3125) - at_base, abs=0.01)  # +180.63
    assert d.low == pytest.approx(400 * math.log10(0.487463 / 0.512537) - at_base, abs=0.01)  # +34.94
    assert d.high == pytest.approx(400 * math.log10(0.887537 / 0.112463) - at_base, abs=0.01)  # +402.53
    # Too few openings for an interval; the two runs must be matched opening by opening.
    assert (paired_difference([0.5], [0.5]).low, paired_difference([], []).high) == (-math.inf, math.inf)
    with pytest.raises(ValueError):
        paired_difference([0.5, 0.5], [0.5])


def test_tally_counts_pairs_only_when_both_games_are_scored():
    games = [(0, "A", "B", "1-0"), (0, "B", "A", "1/2-1/2"),  # A: 1.5 points
             (1, "A", "B", "0-1"), (1, "B", "A", "0-1"),  # A: 1 point (a win and a loss)
             (2, "A", "B", "1-0"), (2, "B", "A", "*")]  # unfinished pair: no pentanomial entry
    t = tally_results(games, "A")
    assert (t.wins, t.losses, t.draws) == (3, 1, 1)
    assert t.pentanomial == [0, 0, 1, 1, 0]
    b = tally_results(games, "B")
    assert (b.wins, b.losses, b.draws) == (1, 3, 1)
    assert b.pentanomial == [0, 1, 1, 0, 0]


# --- SPRT: published reference values (fastchess's test suite, itself checked against fishtest) ---

def _penta(ll, ld, wl, dd, wd, ww):
    return [ll, ld, wl + dd, wd, ww]


@pytest.mark.parametrize("elo0, elo1, counts, expected", [
    (0, 2, _penta(365, 16618, 36029, 200, 16974, 390), 2.25),
    (-1.75, 0.25, _penta(127, 4883, 10311, 401, 5150, 104), 3.01),
    (0, 5, _penta(0, 0, 0, 0, 0, 5550), 111.82),
])
def test_llr_normalized_pentanomial(elo0, elo1, counts, expected):
    assert llr_normalized(elo0, elo1, counts) == pytest.approx(expected, rel=0.01)


@pytest.mark.parametrize("elo0, elo1, counts, expected", [
    (0.5, 2.5, _penta(223, 9863, 20279, 1000, 10037, 246), -3.07),
    (0, 2, _penta(871, 26175, 55003, 980, 26678, 821), -4.98),
])
def test_llr_logistic_pentanomial(elo0, elo1, counts, expected):
    assert llr_logistic(elo0, elo1, counts) == pytest.approx(expected, rel=0.01)


def test_llr_trinomial_reference():
    # trinomial counts are (L, D, W)
    assert llr_normalized(0, 2, [36027, 68692, 36433]) == pytest.approx(0.92, rel=0.01)
    assert llr_logistic(0, 2, [57030, 106593, 57433]) == pytest.approx(-2.59, rel=0.01)


def test_sprt_bounds_and_decisions():
    status = sprt_status(0, 5, 0.05, 0.05, [0, 0, 0, 0, 0])
    assert status.llr == 0 and status.decision == ""
    assert status.lower == pytest.approx(math.log(0.05 / 0.95))
    assert status.upper == pytest.approx(math.log(0.95 / 0.05))
    assert sprt_status(0, 5, 0.05, 0.05, [0, 0, 0, 0, 5550]).decision == "H1"
    assert sprt_status(0, 5, 0.05, 0.05, [5550, 0, 0, 0, 0]).decision == "H0"
    # A balanced sample sits between the hypotheses and favours H0 (elo 0) over H1.
    balanced = sprt_status(0, 5, 0.05, 0.05, [100, 400, 1000, 400, 100])
    assert balanced.llr < 0 and balanced.decision == ""


# --- time controls and clocks ---------------------------------------------------------------------

def test_time_control_parsing():
    tc = TimeControl.parse("40/60+0.6")
    assert (tc.moves, tc.base, tc.increment) == (40, 60.0, 0.6)
    assert TimeControl.parse("1:30+1").base == 90.0
    assert TimeControl.parse("10+0.1").pgn_string() == "10+0.1"
    assert TimeControl.parse(None, st="0.5").movetime == 0.5
    assert TimeControl.parse(None, nodes="1000", depth="3").pgn_string() == "nodes=1000 depth=3"
    for bad in ("abc", "40/", "0+0", "10+x"):
        with pytest.raises(ValueError):
            TimeControl.parse(bad)


def test_clock_periods_increment_and_flag():
    tc = TimeControl.parse("2/10+1", margin="0.5")
    clock = Clock(tc)
    assert clock.remaining_moves == 2 and clock.deadline() == 10.5
    assert not clock.overstepped(10.4) and clock.overstepped(10.6)
    clock.punch(4.0)
    assert clock.remaining == pytest.approx(7.0) and clock.remaining_moves == 1
    clock.punch(3.0)  # end of the period: a fresh 10 s
    assert clock.remaining == pytest.approx(15.0) and clock.remaining_moves == 2
    other = Clock(TimeControl.parse("5+0.1"))
    limit = build_limit(chess.BLACK, clock, other)
    assert (limit.black_clock, limit.white_clock, limit.remaining_moves) == (15.0, 5.0, 2)
    assert limit.white_inc == pytest.approx(0.1) and limit.black_inc == pytest.approx(1.0)


# --- openings ------------------------------------------------------------------------------------

def test_epd_full_fen_and_plain_epd():
    first = read_epd("".join(open(shared_data_path("openings/2moves_v1.epd")).readlines()[:3]))[0]
    assert first.fen == "rn1qkbnr/ppp1pppp/8/3p1b2/2P5/1P6/P2PPPPP/RNBQKBNR w KQkq - 0 3"
    bk = read_epd(open(shared_data_path("bk.epd")).read())
    assert len(bk) == 24 and bk[0].board().turn == chess.BLACK


def test_pgn_openings_with_ply_limit(tmp_path):
    games = read_pgn('[Event "x"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 *\n\n[Event "y"]\n\n1. d4 d5 *\n', plies=3)
    assert [o.moves for o in games] == [("e2e4", "e7e5", "g1f3"), ("d2d4", "d7d5")]


def test_opening_order_seed_and_start(tmp_path):
    path = tmp_path / "book.epd"
    boards = []
    for uci in ("e2e4", "d2d4", "c2c4", "g1f3", "b2b3"):
        b = chess.Board()
        b.push_uci(uci)
        boards.append(b.epd())
    path.write_text("\n".join(boards) + "\n")
    seq = load_openings(OpeningsConfig(file=str(path), start=3), seed=1)
    assert [o.fen.split()[0] for o in seq] == [b.split()[0] for b in boards[2:] + boards[:2]]
    shuffled_a = load_openings(OpeningsConfig(file=str(path), order="random"), seed=7)
    shuffled_b = load_openings(OpeningsConfig(file=str(path), order="random"), seed=7)
    assert shuffled_a == shuffled_b and sorted(o.fen for o in shuffled_a) == sorted(o.fen for o in seq)
    with pytest.raises(ConfigError):
        load_openings(OpeningsConfig(file=str(tmp_path / "missing.epd")), seed=1)


# --- adjudication ---------------------------------------------------------------------------------

def test_rules_verdicts():
    mate = chess.Board("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1")
    assert rules_verdict(mate).result == "1-0"
    assert rules_verdict(chess.Board("7k/8/6QK/8/8/8/8/8 b - - 0 1")).reason == "Draw by stalemate"
    assert rules_verdict(chess.Board("7k/8/8/8/8/8/8/K7 w - - 0 1")).reason.startswith("Draw by insufficient")
    fifty = chess.Board("7k/8/8/8/8/8/R7/K7 w - - 100 80")
    assert rules_verdict(fifty).reason == "Draw by fifty moves rule"
    board = chess.Board()
    for uci in ["g1f3", "g8f6", "f3g1", "f6g8"] * 2:
        assert rules_verdict(board) is None
        board.push_uci(uci)
    assert rules_verdict(board).reason == "Draw by 3-fold repetition"


def test_resign_and_draw_adjudication():
    board = chess.Board()
    resign = Adjudicator(AdjudicationConfig(resign_movecount=2, resign_score=500))
    # White reports -600 twice in a row: after White's second such move, White resigns.
    for uci, score in [("e2e4", -600), ("e7e5", 600), ("g1f3", -600)]:
        board.push_uci(uci)
        resign.record(score)
        verdict = resign.verdict(board)
    assert verdict is not None and verdict.result == "0-1"
    draw = Adjudicator(AdjudicationConfig(draw_movenumber=1, draw_movecount=2, draw_score=10))
    board = chess.Board()
    verdicts = []
    for uci, score in [("e2e4", 5), ("e7e5", -5), ("g1f3", 0), ("b8c6", 50), ("f1b5", 0), ("a7a6", 0),
                       ("b5a4", 3), ("g8f6", -3)]:
        board.push_uci(uci)
        draw.record(score)
        verdicts.append(draw.verdict(board))
    # The 50 cp at ply 4 resets the count: only after plies 5-8 are all inside the band is it a draw.
    assert verdicts[:7] == [None] * 7 and verdicts[7].result == "1/2-1/2"
    longest = Adjudicator(AdjudicationConfig(maxmoves=1))
    longest.record(None)
    assert longest.verdict(chess.Board()) is None
    longest.record(None)
    assert longest.verdict(chess.Board()).termination == "adjudication"


# --- command line and schedule --------------------------------------------------------------------

def test_cutechess_style_command_line():
    config, is_default = build_config(split_options([
        "-engine", "cmd=stockfish -x", "name=A", "option.Hash=64", "arg=--y",
        "-engine", "cmd=phalanx", "proto=xboard", "tc=40/60+0.6",
        "-each", "tc=10+0.1", "timemargin=50",
        "-games", "4", "-rounds", "2", "-concurrency", "2", "-sprt", "0", "5", "0.05", "0.1",
        "-draw", "movenumber=40", "movecount=8", "score=10", "-resign", "movecount=3", "score=900",
        "-openings", "file=x.epd", "order=random", "plies=8", "-pgnout", "out.pgn",
    ]))
    assert not is_default
    a, b = config.engines
    assert a.command == ["stockfish", "-x", "--y"] and a.options == {"Hash": "64"} and a.tc.base == 10.0
    assert a.tc.margin == 0.05
    assert b.name == "phalanx" and b.protocol == "xboard" and (b.tc.moves, b.tc.base) == (40, 60.0)
    assert (config.games, config.rounds, config.concurrency) == (4, 2, 2)
    assert (config.sprt.elo0, config.sprt.elo1, config.sprt.beta) == (0, 5, 0.1)
    assert config.adjudication.draw_movecount == 8 and config.adjudication.resign_score == 900
    assert config.openings.order == "random" and config.openings.plies == 8
    assert config.state_file == "out.pgn.state.json"
    assert TournamentConfig.from_dict(config.to_dict()) == config  # the state file round-trips it


def test_command_line_errors():
    with pytest.raises(ConfigError, match="no time control"):
        build_config(split_options(["-engine", "cmd=a", "-engine", "cmd=b"]))
    with pytest.raises(ConfigError, match="unknown key"):
        build_config(split_options(["-engine", "cmd=a", "colour=red", "-each", "tc=1"]))
    config, _ = build_config(split_options(["-engine", "cmd=a", "-each", "tc=1", "-sprt", "elo0=0", "elo1=5"]))
    with pytest.raises(ConfigError, match="two engines"):
        config.validate()


def test_round_robin_and_gauntlet_schedules():
    config, _ = build_config(split_options(["-engine", "cmd=a", "-engine", "cmd=b", "-engine", "cmd=c",
                                            "-each", "tc=1", "-games", "2", "-rounds", "2"]))
    games = schedule(config, n_openings=5)
    assert len(games) == 3 * 2 * 2
    for first, second in zip(games[::2], games[1::2], strict=True):  # each opening twice, colours swapped
        assert (first.pair, first.opening) == (second.pair, second.opening)
        assert (first.white, first.black) == (second.black, second.white)
    assert len({g.pair for g in games}) == 6
    config.kind = "gauntlet"
    assert {(g.white, g.black) for g in schedule(config, 5)} == {("a", "b"), ("b", "a"), ("a", "c"), ("c", "a")}


def test_plot_history_and_missing_matplotlib(tmp_path, monkeypatch):
    finished = [FinishedGame(i, i // 2, 1, "A", "B", 0, r, "normal", "", 10)
                for i, r in enumerate(["1-0", "0-1", "1/2-1/2", "1-0"])]
    history = elo_history(finished, "A")
    assert [n for n, *_ in history] == [1, 2, 3, 4]
    assert history[-1][1] == pytest.approx(elo_from_score(2.5 / 4))
    monkeypatch.setitem(__import__("sys").modules, "matplotlib", None)  # as if not installed
    with pytest.raises(PlotUnavailable, match=r"needs matplotlib: pip install .*\[plot\]"):
        write_plot(str(tmp_path / "elo.png"), finished, "A", "B")


def test_bad_opening_is_a_config_error():
    from tournaments.openings import Opening, validate
    validate(Opening(chess.STARTING_FEN, ("e2e4",)))
    with pytest.raises(ConfigError):
        validate(Opening("not a fen"))
    with pytest.raises(ConfigError):
        validate(Opening(chess.STARTING_FEN, ("e2e5",)))


# --- openings played as moves from the start position ----------------------------------------------

def _reaches(path, fen):
    board = chess.Board()
    for uci in path:
        board.push_uci(uci)
    return board.epd(en_passant="legal") == chess.Board(fen).epd(en_passant="legal")


@pytest.mark.debian
def test_2moves_book_lines_are_four_plies_from_the_start():
    from tournaments.replay import path_from_start
    lines = open(shared_data_path("openings/2moves_v1.epd")).read().splitlines()
    sample = lines[::200]  # 203 lines spread over the book; the whole book was checked by hand
    for line in sample:
        path = path_from_start(line)
        assert path is not None and len(path) == 4 and _reaches(path, line), line


@pytest.mark.debian
def test_path_from_start_edge_cases():
    from tournaments.replay import path_from_start
    # A pawn that takes two moves to reach c4, where Black captures it.
    tricky = "rnbqkbnr/p1pppppp/8/8/2p5/8/PP1PPPPP/RNBQKBNR w KQkq - 0 3"
    assert _reaches(path_from_start(tricky), tricky)
    # Kings out and back: same squares, but the castling rights are gone (1. e4 e5 2. Ke2 Ke7 3. Ke1 Ke8).
    no_rights = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w - - 4 4"
    path = path_from_start(no_rights)
    assert path is not None and len(path) == 6 and _reaches(path, no_rights)
    assert path_from_start(chess.STARTING_FEN) == ()
    assert path_from_start("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 2") == ("e2e3", "e7e5", "e3e4")
    # Black to move after only Nf3 Nf6: knights cannot lose a tempo, so no path (the node budget ends it).
    assert path_from_start("rnbqkb1r/pppppppp/5n2/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 1 1") is None
    deep = open(shared_data_path("openings/8mvs_big_+80_+109.epd")).readline()
    assert path_from_start(deep) is None  # 16 plies: refused at once by the bound
    assert path_from_start("7k/8/8/8/8/8/8/K7 w - - 0 1") is None
    assert path_from_start("not a fen") is None


@pytest.mark.debian
def test_openings_become_moves_from_the_start():
    from tournaments.openings import Opening, as_moves
    epd = Opening("rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2")
    moved = as_moves(epd)
    assert moved.from_start and len(moved.moves) == 3 and moved.board().epd() == epd.board().epd()
    deep = Opening(open(shared_data_path("openings/8mvs_big_+80_+109.epd")).readline().strip())
    assert as_moves(deep) == deep  # kept as a FEN (setboard)
    pgn = read_pgn('[FEN "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"]\n\n1... e5 2. Nf3 *\n', None)[0]
    assert as_moves(pgn).moves == ("e2e4", "e7e5", "g1f3")  # the FEN's path, then the PGN's moves
    builtin = load_openings(OpeningsConfig(), seed=1)
    assert all(o.from_start and as_moves(o) == o for o in builtin)


# --- command-line habits of cutechess-cli users -------------------------------------------------

def test_cutechess_compatible_options(tmp_path):
    config, _ = build_config(split_options([
        "-engine", "cmd=a", "-engine", "cmd=b", "timemargin=200ms", "-each", "tc=1+0.1", "timemargin=50",
        "-tournament", "roundrobin", "-repeat", "-recover", "off", "-ratinginterval", "5",
        "-pgnout", "out.pgn", "min", "fi", "-site", "lab",
    ]))
    a, b = config.engines
    assert a.tc.margin == 0.05 and b.tc.margin == pytest.approx(0.2)
    assert config.kind == "round-robin" and not config.recover and config.report_every == 5
    assert config.pgnout == "out.pgn" and config.pgn_min and config.site == "lab"
    with pytest.raises(ConfigError, match="counts milliseconds"):
        build_config(split_options(["-engine", "cmd=a", "-engine", "cmd=b", "-each", "tc=1", "timemargin=0.1"]))
    with pytest.raises(ConfigError, match="exactly twice"):
        build_config(split_options(["-engine", "cmd=a", "-engine", "cmd=b", "-each", "tc=1", "-repeat", "4"]))
    with pytest.raises(ConfigError, match="-pgnout"):
        build_config(split_options(["-engine", "cmd=a", "-engine", "cmd=b", "-each", "tc=1", "-pgnout", "x", "max"]))


def test_each_applies_to_engines_from_a_config_file(tmp_path):
    base, _ = build_config(split_options(["-engine", "cmd=a", "option.Hash=8", "-engine", "cmd=b", "proto=xboard",
                                          "-each", "tc=10+0.1", "timemargin=200"]))
    path = tmp_path / "run.json"
    path.write_text(__import__("json").dumps(base.to_dict()))
    config, _ = build_config(split_options(["-config", str(path), "-each", "tc=5+0.05", "option.Threads=1"]))
    a, b = config.engines
    assert (a.tc.base, a.tc.increment, a.tc.margin) == (5.0, 0.05, 0.2)  # the file's margin stays
    assert a.options == {"Hash": "8", "Threads": "1"} and b.protocol == "xboard"
    config, _ = build_config(split_options(["-config", str(path), "-each", "timemargin=500"]))
    assert config.engines[0].tc.base == 10.0 and config.engines[0].tc.margin == 0.5
    default, is_default = build_config(split_options(["-each", "tc=2+0.02", "option.Hash=32"]))
    assert is_default and all(e.tc.base == 2.0 and e.options["Hash"] == "32" for e in default.engines)


def test_unwritable_output_stops_the_run_before_engines_start(tmp_path, capsys):
    from tournaments.__main__ import main
    args = ["-engine", "cmd=/nonexistent/a", "-engine", "cmd=/nonexistent/b", "-each", "tc=1"]
    assert main(args + ["-pgnout", str(tmp_path / "missing" / "x.pgn")]) == 2
    assert "cannot write the PGN file" in capsys.readouterr().err  # not "cannot start": engines never ran
    assert main(args + ["-plot", str(tmp_path / "missing" / "x.png")]) == 2
    assert "cannot write the plot file" in capsys.readouterr().err
