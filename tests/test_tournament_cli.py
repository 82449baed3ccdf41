"""The runner as fastchess and cutechess-cli users type it (issue 36).

Game pairs across rounds, ``timemargin`` in milliseconds, fastchess's ``key=value``
options, Windows engine paths, install hints, the plot, fastchess's PGN and
result block, ``-recover``, and a fastchess README command line that moves the LLR.
New APIs are imported inside the tests, so that each test fails on its own
(not the whole file) against a runner without them.
"""

import datetime
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import chess
import chess.pgn
import pytest
from conftest import REPO_ROOT

from tests.test_tournament import BOOK, fake, read_games
from tournaments.__main__ import main
from tournaments.cli import USAGE, build_config, split_options
from tournaments.config import ConfigError, EngineConfig, default_config
from tournaments.runner import schedule
from tournaments.sprt import sprt_status
from tournaments.state import FinishedGame
from tournaments.stats import tally_results

BASE = ["-engine", "cmd=a", "-engine", "cmd=b", "-each", "tc=1"]
# Two engines that answer at once: real games in a fraction of a second each.
FAKES = ["-engine", fake("good", 999), "name=f1", "-engine", fake("good", 999), "name=f2",
         "-each", "tc=5+0.05", "-maxmoves", "6"]


def config_of(*words):
    config, _ = build_config(split_options([*BASE, *words]))
    config.validate()
    return config


def _won_by(games, winner):
    return [FinishedGame(g.index, g.pair, g.round, g.white, g.black, g.opening,
                         "1-0" if g.white == winner else "0-1", "normal", "", 10) for g in games]


# --- -games 1 -rounds N -repeat: pairs across rounds, as cutechess-cli plays them ------------------------

def test_games_1_rounds_n_repeat_pairs_across_rounds():
    games = schedule(config_of("-games", "1", "-rounds", "6", "-repeat"), n_openings=10)
    # cutechess-cli swaps the players after every game and repeats the opening for the next one:
    # rounds 2k-1 and 2k are one pair.
    assert [(g.round, g.white, g.black, g.opening, g.pair) for g in games] == [
        (1, "a", "b", 0, 0), (2, "b", "a", 0, 0), (3, "a", "b", 1, 1), (4, "b", "a", 1, 1),
        (5, "a", "b", 2, 2), (6, "b", "a", 2, 2)]
    tally = tally_results([(g.pair, g.white, g.black, g.result) for g in _won_by(games, "a")], "a")
    assert tally.pentanomial == [0, 0, 0, 0, 3]
    assert sprt_status(0, 5, 0.05, 0.05, tally.pentanomial).llr > 0  # the SPRT moves


def test_odd_games_pair_the_last_game_of_a_round_with_the_next_round():
    games = schedule(config_of("-games", "3", "-rounds", "2"), n_openings=10)
    assert [(g.round, g.white, g.black, g.opening, g.pair) for g in games] == [
        (1, "a", "b", 0, 0), (1, "b", "a", 0, 0), (1, "a", "b", 1, 1),
        (2, "b", "a", 1, 1), (2, "a", "b", 2, 2), (2, "b", "a", 2, 2)]
    three = schedule(config_of("-engine", "cmd=c", "-games", "1", "-rounds", "2"), n_openings=10)
    # Each encounter's two games, one per round, share an opening with colours swapped.
    assert [(g.round, g.white, g.black, g.opening, g.pair) for g in three] == [
        (1, "a", "b", 0, 0), (1, "a", "c", 1, 1), (1, "b", "c", 2, 2),
        (2, "b", "a", 0, 0), (2, "c", "a", 1, 1), (2, "c", "b", 2, 2)]
    # An even -games keeps its pairs inside a round, as before.
    assert [(g.round, g.white, g.opening, g.pair) for g in schedule(config_of("-rounds", "2"), 10)] == [
        (1, "a", 0, 0), (1, "b", 0, 0), (2, "a", 1, 1), (2, "b", 1, 1)]


def test_what_cannot_pair_is_refused(capsys):
    assert main([*BASE, "-games", "1", "-sprt", "elo0=0", "elo1=5"]) == 2
    err = capsys.readouterr().err
    assert "-sprt counts game pairs" in err and "make no pair" in err and "cannot start" not in err
    with pytest.raises(ConfigError, match="policy=round cannot"):
        config_of("-games", "1", "-rounds", "2", "-openings", "policy=round")
    config_of("-games", "1", "-rounds", "2", "-openings", "policy=default")
    config_of("-games", "1", "-rounds", "1")  # one game and no SPRT: nothing to pair, nothing refused


def test_resume_refuses_a_state_file_from_another_schedule():
    from tournaments.runner import check_schedule
    config = config_of("-games", "1", "-rounds", "2")
    specs = schedule(config, 8)
    same = _won_by(specs, "a")
    check_schedule(config, specs, same)
    # What the old schedule recorded for round 2: a new pair, with the first engine White again.
    old = FinishedGame(1, 1, 2, "a", "b", 1, "1-0", "normal", "", 10)
    with pytest.raises(ConfigError, match="paired games differently"):
        check_schedule(config, specs, [same[0], old])


# --- timemargin in milliseconds ------------------------------------------------------------------------

def test_timemargin_counts_milliseconds():
    def margin(value):
        return config_of("-each", f"timemargin={value}").engines[0].tc.margin

    assert margin("5") == pytest.approx(0.005)  # was 5 seconds
    assert margin("50") == margin("50ms") == margin("0.05s") == pytest.approx(0.05)
    assert margin("1500") == pytest.approx(1.5)
    with pytest.raises(ConfigError, match=r"timemargin=0\.05: a bare timemargin counts milliseconds.*50"):
        margin("0.05")
    assert "timemargin=50 (milliseconds" in USAGE


# --- fastchess's key=value spellings ---------------------------------------------------------------------

def test_fastchess_key_value_spellings():
    c = config_of("-epdout", "file=final.epd", "append=false",
                  "-log", "file=games.log", "level=info", "engine=true", "realtime=false", "append=false",
                  "-pgnout", "file=g.pgn", "notation=lan", "nodes=true", "seldepth=true", "pv=true", "latency=true",
                  "hashfull=true", "tbhits=true", "timeleft=true", "nps=false", "append=false", "min=false",
                  "-output", "format=fastchess", "-maxmoves", "80",
                  "-draw", "movenumber=34", "movecount=8", "score=20", "-resign", "movecount=3", "score=600",
                  "twosided=true", "-openings", "file=book.epd", "format=epd", "order=random", "plies=8", "start=3",
                  "-sprt", "elo0=0", "elo1=2", "alpha=0.05", "beta=0.1", "model=logistic")
    assert (c.epdout, c.epd_append, c.log, c.log_append) == ("final.epd", False, "games.log", False)
    assert (c.pgnout, c.pgn_notation, c.pgn_append, c.pgn_min) == ("g.pgn", "lan", False, False)
    # fastchess's order, whatever the order given.
    assert c.pgn_extras == ["timeleft", "latency", "nodes", "seldepth", "hashfull", "tbhits", "pv"]
    assert c.output == "fastchess" and c.adjudication.maxmoves == 80 and c.adjudication.draw_movenumber == 34
    assert c.adjudication.resign_twosided and (c.openings.file, c.openings.start) == ("book.epd", 3)
    assert (c.sprt.elo1, c.sprt.beta, c.sprt.model) == (2, 0.1, "logistic")
    assert c.state_file == "g.pgn.state.json"
    # cutechess-cli's forms still work.
    c = config_of("-epdout", "final.epd", "-log", "games.log", "-pgnout", "g.pgn", "min", "fi", "-output",
                  "cutechess")
    assert (c.epdout, c.log, c.pgnout, c.pgn_min, c.output) == ("final.epd", "games.log", "g.pgn", True, "cutechess")
    assert c.epd_append and c.log_append and c.pgn_append and c.pgn_notation == "san"


@pytest.mark.parametrize("words, message", [
    (["-epdout", "file=x.epd", "apend=true"], "-epdout: unknown key 'apend'"),
    (["-log", "file=x.log", "lvl=info"], "-log: unknown key 'lvl'"),
    (["-log", "file=x.log", "level=loud"], "-log: level=loud is not one of"),
    (["-log", "file=x.log", "compress=true"], "-log: compress=true is not supported"),
    (["-pgnout", "file=x.pgn", "node=true"], "-pgnout: unknown key 'node'"),
    (["-pgnout", "file=x.pgn", "notation=figurine"], "-pgnout: notation=figurine is not one of san, lan, uci"),
    (["-pgnout", "file=x.pgn", "match_line=^info"], "-pgnout: match_line= is not supported"),
    (["-pgnout", "file=x.pgn", "nodes=maybe"], "-pgnout nodes: expected true or false"),
    (["-config", "file=x.json", "out=y"], "-config: unknown key 'out'"),
    (["-output", "fmt=fastchess"], "-output: unknown key 'fmt'"),
    (["-openings", "file=x.epd", "shuffle=true"], "-openings: unknown key 'shuffle'"),
    (["-sprt", "elo0=0", "elo1=5", "a=0.05"], "-sprt: unknown key 'a'"),
    (["-draw", "movecount=8", "score=20", "moves=3"], "-draw: unknown key 'moves'"),
    (["-resign", "movecount=3", "score=600", "both=true"], "-resign: unknown key 'both'"),
    (["-engine", "cmd=c", "restart=on"], "restart=on is not supported"),
])
def test_unknown_keys_are_refused_naming_the_flag_and_the_key(words, message):
    with pytest.raises(ConfigError) as err:
        config_of(*words)
    assert message in str(err.value)


def test_config_file_and_outname(tmp_path):
    run = tmp_path / "run.json"
    base = config_of("-engine", "cmd=c", "name=third")
    run.write_text(json.dumps(base.to_dict()))
    config, _ = build_config(split_options(["-config", f"file={run}", "outname=run.state.json", "stats=false"]))
    assert [e.name for e in config.engines] == ["a", "b", "third"] and config.state_file == "run.state.json"
    config, _ = build_config(split_options(["-config", str(run)]))  # the plain form
    assert len(config.engines) == 3
    with pytest.raises(ConfigError, match="discard=true is not supported"):
        build_config(split_options(["-config", f"file={run}", "discard=true"]))


def test_resume_finds_the_state_file_of_fastchess_spellings():
    from tournaments.cli import resume_path
    assert resume_path(split_options(["-resume", "-pgnout", "file=g.pgn", "nodes=true"])) == "g.pgn.state.json"
    assert resume_path(split_options(["-resume", "-pgnout", "g.pgn", "min"])) == "g.pgn.state.json"
    assert resume_path(split_options(["-resume", "-config", "outname=run.json", "-pgnout", "file=g.pgn"])) == \
        "run.json"
    assert resume_path(split_options(["-resume", "s.json", "-pgnout", "file=g.pgn"])) == "s.json"


def test_file_keys_write_the_named_files(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # a literal "file=..." would land here
    (tmp_path / "g.pgn").write_text("not a game, from an earlier run\n")
    assert main([*FAKES, "-games", "2", "-pgnout", "file=g.pgn", "notation=uci", "nodes=true", "append=false",
                 "-epdout", "file=final.epd", "-log", "file=games.log", "level=info", "engine=true"]) == 0
    capsys.readouterr()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("file=")]
    assert len((tmp_path / "final.epd").read_text().splitlines()) == 2
    assert (tmp_path / "games.log").read_text().count("# game ") == 2
    text = (tmp_path / "g.pgn").read_text()
    assert "earlier run" not in text  # append=false: a new run starts the file afresh
    assert "1. e2e4 { book } 1... e7e5 { book } 2. g1f3 { book }" in text  # notation=uci
    for game in read_games(tmp_path / "g.pgn"):
        engine_comments = [n.comment for n in game.mainline() if n.comment != "book"]
        assert engine_comments and all(", n=1" in c for c in engine_comments)  # fastchess's n= key


# --- Windows engine paths ------------------------------------------------------------------------------

def test_windows_engine_paths_survive():
    config, _ = build_config(split_options([
        "-engine", r"cmd=C:\engines\sf.exe",
        "-engine", r'cmd="C:\Program Files\Stockfish\sf.exe" --uci', "name=sf2", r"args=--dir C:\tb",
        "-each", "tc=1"]))
    first, second = config.engines
    assert first.command == [r"C:\engines\sf.exe"] and first.name == "sf.exe"
    assert second.command == [r"C:\Program Files\Stockfish\sf.exe", "--uci", "--dir", r"C:\tb"]
    from tournaments.config import split_command
    assert split_command(r"engines\sf.exe -x") == [r"engines\sf.exe", "-x"]
    assert split_command(r"\\server\share\sf.exe") == [r"\\server\share\sf.exe"]
    assert split_command(r"C:\Users\O'Brien\sf.exe") == [r"C:\Users\O'Brien\sf.exe"]  # no single quotes there
    assert split_command("C:/engines/sf.exe") == ["C:/engines/sf.exe"]
    # A config file (or a resume state) with the command as one string.
    assert EngineConfig.from_dict({"name": "x", "command": r"C:\e\sf.exe -x"}).command == [r"C:\e\sf.exe", "-x"]


def test_posix_commands_split_as_before(tmp_path):
    from tournaments.config import split_command
    # on_windows=False: what Linux and macOS do, whichever machine runs the test.
    assert split_command("python -m uci_engine", on_windows=False) == ["python", "-m", "uci_engine"]
    assert split_command(r"my\ engine --x", on_windows=False) == ["my engine", "--x"]
    assert split_command("'my engine' --x", on_windows=False) == ["my engine", "--x"]
    # On Windows every command is split as Windows splits it.
    assert split_command('"my engine.exe" --x', on_windows=True) == ["my engine.exe", "--x"]
    assert split_command("sf.exe --x", on_windows=True) == ["sf.exe", "--x"]
    program = tmp_path / "an engine"
    program.write_text("")
    assert split_command(str(program)) == [str(program)]  # an existing file is taken whole


def test_windows_ci_job_runs_the_runner_tests():
    import yaml  # the test extra installs PyYAML: missing, it is a failure
    jobs = {}
    for workflow in (REPO_ROOT / ".github" / "workflows").glob("*.yml"):
        jobs.update(yaml.safe_load(workflow.read_text())["jobs"])
    windows = [job for job in jobs.values() if job.get("runs-on") == "windows-latest"
               and any("pytest" in step.get("run", "") for step in job["steps"])]
    assert len(windows) == 1, "one Windows job runs the runner's tests"
    runs = " ".join(step.get("run", "") for step in windows[0]["steps"])
    for part in ('-m "not debian"', "tests/test_tournament_units.py", "tests/test_tournament_options.py",
                 "tests/test_tournament_cli.py", "[cluster,live,plot]"):
        assert part in runs, part
    assert "debian:" in (REPO_ROOT / "pyproject.toml").read_text()  # the marker is declared


# --- install hints -------------------------------------------------------------------------------------

def _pyproject_extras():
    text = (REPO_ROOT / "pyproject.toml").read_text()
    section = text.split("[project.optional-dependencies]", 1)[1].split("\n[", 1)[0]
    return {name: re.findall(r'"([^"]+)"', body)
            for name, body in re.findall(r"^(\w+) = \[(.*?)\]$", section, re.MULTILINE | re.DOTALL)}


def test_install_hints_work_from_where_the_user_is(tmp_path, monkeypatch):
    from tournaments import install
    extras = _pyproject_extras()
    for extra, requirements in install.EXTRAS.items():
        assert extras[extra] == requirements, extra
    assert install.checkout_root() == REPO_ROOT
    assert install.install_hint("cluster", cwd=str(REPO_ROOT)) == 'pip install ".[cluster]"'
    assert install.install_hint("plot", cwd=str(tmp_path)) == f'pip install "{REPO_ROOT}[plot]"'
    # An installed wheel: the extra's own requirements, which PyPI has.
    monkeypatch.setattr(install, "checkout_root", lambda: None)
    monkeypatch.setattr(install.metadata, "requires", lambda name: [
        "chess>=1.9", 'dask[distributed]>=2024.1; extra == "cluster"', 'rich>=13; extra == "live"'])
    assert install.install_hint("cluster") == 'pip install "dask[distributed]>=2024.1"'
    assert install.install_hint("live") == 'pip install "rich>=13"'


def test_every_hint_names_the_checkouts_extra(monkeypatch):
    from tournaments.dask_backend import INSTALL_HINT
    from tournaments.install import install_hint
    from tournaments.live import LiveDisplay, LiveUnavailable
    from tournaments.plot import PlotUnavailable, write_plot
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "rich.console", None)
    with pytest.raises(PlotUnavailable) as plot:
        write_plot("x.png", [], "A", "B")
    with pytest.raises(LiveUnavailable) as live:
        LiveDisplay(sys.stderr)
    for text, extra in ((INSTALL_HINT, "cluster"), (USAGE, "cluster"), (str(plot.value), "plot"),
                        (str(live.value), "live")):
        assert "kestrel-chess[" not in text and install_hint(extra) in text.replace("\n", ""), text
    docs = (REPO_ROOT / "docs" / "tournaments.md").read_text()
    assert "kestrel-chess[" not in docs and 'pip install ".[cluster]"' in docs


# --- the plot ------------------------------------------------------------------------------------------

def test_the_plot_extra_pins_a_matplotlib_with_height_ratios():
    extras = _pyproject_extras()
    # subplots(height_ratios=...) came with matplotlib 3.6.0 (its "What's new in 3.6.0").
    for extra in ("plot", "test"):
        (pin,) = [r for r in extras[extra] if r.startswith("matplotlib")]
        assert pin == "matplotlib>=3.6", (extra, pin)


def test_a_failing_plot_is_a_warning_after_the_results(tmp_path, monkeypatch, capsys):
    import tournaments.__main__ as cli_main

    def old_matplotlib(*args, **kwargs):
        raise TypeError("subplots() got an unexpected keyword argument 'height_ratios'")

    monkeypatch.setattr(cli_main, "write_plot", old_matplotlib)
    pgn = tmp_path / "p.pgn"
    assert main([*FAKES, "-games", "2", "-pgnout", str(pgn), "-plot", str(tmp_path / "elo.png")]) == 0
    out, err = capsys.readouterr()
    assert "Score of f1 vs f2:" in out and len(read_games(pgn)) == 2
    assert "Warning: no plot (TypeError: subplots() got an unexpected keyword argument 'height_ratios')" in err


# --- PGN as fastchess writes it --------------------------------------------------------------------------

def test_epd_openings_start_the_pgn_at_the_position(tmp_path):
    book = tmp_path / "book.epd"
    position = "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq -"  # 1. e4 e5 2. Nf3
    book.write_text(position + "\n")
    pgn = tmp_path / "epd.pgn"
    before = datetime.datetime.now().astimezone().replace(microsecond=0)
    assert main([*FAKES, "-games", "2", "-openings", f"file={book}", "-pgnout", str(pgn)]) == 0
    games = read_games(pgn)
    assert len(games) == 2
    for game in games:
        h = game.headers
        # The engines got the moves that reach it (engines without setboard need them); the PGN starts there.
        assert h["SetUp"] == "1" and chess.Board(h["FEN"]).epd() == chess.Board(position + " 0 1").epd()
        assert "book" not in [n.comment for n in game.mainline()]
        assert int(h["PlyCount"]) == len(list(game.mainline_moves()))
        board = game.board()
        for move in game.mainline_moves():
            assert board.is_legal(move)
            board.push(move)
        assert re.fullmatch(r"\d\d:\d\d:\d\d", h["GameDuration"])
        start = datetime.datetime.strptime(h["GameStartTime"], "%Y-%m-%dT%H:%M:%S %z")
        end = datetime.datetime.strptime(h["GameEndTime"], "%Y-%m-%dT%H:%M:%S %z")
        assert before <= start <= end <= datetime.datetime.now().astimezone()
        tags = list(h)
        assert tags.index("SetUp") < tags.index("FEN") < tags.index("GameDuration") < tags.index("Termination")
    text = pgn.read_text()
    assert text.index('[SetUp "1"]') < text.index("[FEN ")


def test_pgn_openings_keep_their_book_moves_and_min_drops_the_times(tmp_path):
    full, minimal = tmp_path / "full.pgn", tmp_path / "min.pgn"
    assert main([*FAKES, "-games", "2", "-pgnout", str(full)]) == 0
    assert main([*FAKES, "-games", "2", "-pgnout", str(minimal), "min"]) == 0
    for game in read_games(full) + read_games(minimal):
        assert "FEN" not in game.headers  # the built-in lines are played from the start position
        assert [m.uci() for m in game.mainline_moves()][:6] == "e2e4 e7e5 g1f3 b8c6 f1b5 a7a6".split()
    assert all("GameDuration" in g.headers and "GameEndTime" in g.headers for g in read_games(full))
    assert not any("GameDuration" in g.headers for g in read_games(minimal))  # min: fastchess drops them


# --- -recover --------------------------------------------------------------------------------------------

def test_recover_is_off_unless_given_as_in_fastchess():
    assert not config_of().recover and not default_config().recover
    assert config_of("-recover").recover and config_of("-recover", "on").recover
    assert not config_of("-recover", "off").recover
    assert "without it (the" in USAGE and "default, as in fastchess and cutechess-cli)" in USAGE


# --- a fastchess README command line, run unchanged --------------------------------------------------------

# fastchess's man.md, EXAMPLES, the SPRT test (Engine1/Engine2, UHO_Lichess_4852_v1.epd, tc=300+5,
# nodes=2000000/1000000, -rounds 100000 -concurrency 3, ./games/sprt.pgn):
#   fastchess -engine cmd=Engine1.exe name=Engine1 option.Threads=1 nodes=2000000
#     -engine cmd=Engine2.exe name=Engine2 option.Threads=2 nodes=1000000
#     -openings file=UHO_Lichess_4852_v1.epd format=epd order=random
#     -each tc=300+5 -resign movecount=3 score=600 -draw movenumber=34 movecount=8 score=20
#     -sprt elo0=0 elo1=2 alpha=0.05 beta=0.05
#     -rounds 100000 -concurrency 3 -pgnout notation=san nodes=true file=./games/sprt.pgn
# Here the engines are Kestrel, the book 2moves_v1.epd, and only the sizes shrink: nodes, tc, rounds, concurrency.
FASTCHESS_SPRT = (
    "-engine cmd={kestrel} name=Kestrel1 option.Threads=1 nodes=4000 "
    "-engine cmd={kestrel} name=Kestrel2 option.Threads=2 nodes=2000 "
    "-openings file={book} format=epd order=random "
    "-each tc=1+0.01 -resign movecount=3 score=600 -draw movenumber=34 movecount=8 score=20 "
    "-sprt elo0=0 elo1=2 alpha=0.05 beta=0.05 "
    "-rounds 3 -concurrency 2 -pgnout notation=san nodes=true file=./games/sprt.pgn")


@pytest.mark.slow
@pytest.mark.debian  # the shared opening book
def test_a_fastchess_sprt_command_line_runs_unchanged_and_moves_the_llr(tmp_path):
    assert BOOK.is_file(), f"the opening book {BOOK} is missing"
    (tmp_path / "games").mkdir()
    # "cmd=python -m uci_engine" is one argument, as a shell passes "cmd=python -m uci_engine".
    args = [f"cmd={sys.executable} -m uci_engine" if word == "cmd={kestrel}" else word.replace("{book}", str(BOOK))
            for word in FASTCHESS_SPRT.split()]
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}  # the games folder is the working directory
    proc = subprocess.run([sys.executable, "-m", "tournaments", *args], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    games = read_games(tmp_path / "games" / "sprt.pgn")
    assert len(games) == 6
    assert all(re.search(r", n=\d+", n.comment) for g in games for n in g.mainline())  # nodes=true
    finished = [(int(g.headers["Round"].split(".")[1]) - 1, g) for g in games]
    results = [(index // 2, g.headers["White"], g.headers["Black"], g.headers["Result"]) for index, g in finished]
    tally = tally_results(results, "Kestrel1")
    assert sum(tally.pentanomial) == 3  # every pair complete
    llr = sprt_status(0, 2, 0.05, 0.05, tally.pentanomial).llr
    assert llr != 0
    penta = re.search(r"Ptnml\(0-2\): \[(\d+), (\d+), (\d+), (\d+), (\d+)\]", proc.stdout)
    assert penta and [int(x) for x in penta.groups()] == tally.pentanomial
    assert f"LLR {llr:.2f}" in proc.stdout


def test_fastchess_sprt_line_is_the_readme_example_with_sizes_changed():
    """The line above differs from fastchess's example only in names, paths and sizes."""
    example = ("-engine cmd=Engine1.exe name=Engine1 option.Threads=1 nodes=2000000 "
               "-engine cmd=Engine2.exe name=Engine2 option.Threads=2 nodes=1000000 "
               "-openings file=UHO_Lichess_4852_v1.epd format=epd order=random "
               "-each tc=300+5 -resign movecount=3 score=600 -draw movenumber=34 movecount=8 score=20 "
               "-sprt elo0=0 elo1=2 alpha=0.05 beta=0.05 "
               "-rounds 100000 -concurrency 3 -pgnout notation=san nodes=true file=./games/sprt.pgn").split()
    ours = FASTCHESS_SPRT.split()
    assert len(ours) == len(example)
    changed = {(a.split("=")[0] if "=" in a else a) for a, b in zip(ours, example, strict=True) if a != b}
    assert changed <= {"cmd", "name", "nodes", "file", "tc", "3", "2"}, changed
    config, _ = build_config(split_options(FASTCHESS_SPRT.replace("{kestrel}", "kestrel")
                                           .replace("{book}", "b.epd").split()))
    config.validate()
    assert config.sprt is not None and config.games == 2 and config.pgnout == "./games/sprt.pgn"
    assert config.pgn_extras == ["nodes"] and config.pgn_notation == "san"
    assert [e.tc.nodes for e in config.engines] == [4000, 2000]
    assert Path(config.state_file).name == "sprt.pgn.state.json"


def test_the_record_cost_line_compares_early_and_late_games():
    from tournaments.runner import record_cost_line
    assert record_cost_line([0.001] * 49) is None
    line = record_cost_line([0.001] * 90 + [0.004] * 10)
    assert line is not None
    assert "first 10 games 1.00 ms mean, 1.00 ms max" in line and "last 10 games 4.00 ms mean, 4.00 ms max" in line
