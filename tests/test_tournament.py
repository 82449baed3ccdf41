"""The tournament runner against real engine processes: Stockfish, Phalanx (xboard) and misbehaving fakes.

Every run goes through the real command line (``python -m tournaments``) and
every PGN it writes is parsed and replayed.
"""

import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import time
from pathlib import Path

import chess
import chess.pgn
import pytest
from conftest import REPO_ROOT, SHARED_DATA

from tournaments.adjudication import rules_verdict

FAKE = str(REPO_ROOT / "tests" / "fake_engines" / "fake_uci.py")
STOCKFISH = shutil.which("stockfish") or "/usr/games/stockfish"
PHALANX = shutil.which("phalanx") or "/usr/games/phalanx"
FAIRYMAX = shutil.which("fairymax") or "/usr/games/fairymax"
BOOK = SHARED_DATA / "openings" / "2moves_v1.epd"
DEEP_BOOK = SHARED_DATA / "openings" / "8mvs_big_+80_+109.epd"


def _require(path: str, package: str) -> str:
    if not os.access(path, os.X_OK):
        pytest.fail(f"{path} is missing: install Debian's {package} package (.ci/run does)")
    return path


def fake(mode: str, after: int = 3) -> str:
    return f"cmd={sys.executable} {FAKE} {mode} {after}"


def run_cli(args: list[str], timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tournaments", *args], cwd=REPO_ROOT, capture_output=True,
                          text=True, timeout=timeout)


def read_games(path: Path) -> list[chess.pgn.Game]:
    games = []
    with open(path, encoding="utf-8") as f:
        while (game := chess.pgn.read_game(f)) is not None:
            games.append(game)
    return games


def check_replay(game: chess.pgn.Game) -> chess.Board:
    """The game parses without errors, its moves are legal, and a rules ending matches the board."""
    assert not game.errors, game.errors
    board = game.board()
    for move in game.mainline_moves():
        assert board.is_legal(move)
        board.push(move)
    result = game.headers["Result"]
    assert result in ("1-0", "0-1", "1/2-1/2")
    ending = rules_verdict(board)
    if game.headers["Termination"] == "normal" and "resigns" not in game.end().comment:
        assert ending is not None and ending.result == result
    else:
        assert ending is None  # a game the rules had ended could not be adjudicated or forfeited
    return board


def book_position(game: chess.pgn.Game) -> chess.Board:
    """The board after the moves marked as book."""
    board = game.board()
    for node in game.mainline():
        if node.comment != "book":
            break
        board.push(node.move)
    return board


def games_by_black_or_white(games: list[chess.pgn.Game], name: str) -> list[chess.pgn.Game]:
    return [g for g in games if name in (g.headers["White"], g.headers["Black"])]


@pytest.mark.slow
def test_engine_faults_are_forfeits_with_reasons(tmp_path):
    _require(STOCKFISH, "stockfish")
    pgn = tmp_path / "faults.pgn"
    proc = run_cli([
        "-tournament", "gauntlet",
        "-engine", f"cmd={STOCKFISH}", "name=sf", "depth=1",
        "-engine", fake("crash"), "name=crash",
        "-engine", fake("hang"), "name=hang",
        "-engine", fake("hang"), "name=hang-depth", "tc=inf", "depth=1",
        "-engine", fake("illegal"), "name=illegal",
        "-engine", fake("malformed"), "name=malformed",
        "-engine", fake("silent"), "name=silent",
        "-each", "tc=1+0.01", "timemargin=50", "-recover",
        # 3 s to start: Stockfish loads its network, and a busy machine must not make it the culprit.
        "-games", "2", "-concurrency", "2", "-startup-timeout", "3", "-hang-timeout", "1",
        "-pgnout", str(pgn), "-report-every", "1",
    ])
    assert proc.returncode == 0, proc.stderr
    assert "no answer to uci within 3s" in proc.stderr  # the start-up check warned, and went on
    games = read_games(pgn)
    assert len(games) == 12
    expected = {
        "crash": ("abandoned", "disconnects: engine process died unexpectedly (exit code: 3)"),
        "hang": ("time forfeit", "loses on time: no move after"),
        "hang-depth": ("stalled connection", "connection stalls: no move within 1s"),
        "illegal": ("rules infraction", "makes an illegal move: illegal uci"),
        "malformed": ("rules infraction", "sends a malformed answer"),
        "silent": ("stalled connection", "connection stalls: no answer to uci within 3s"),
    }
    for name, (termination, reason) in expected.items():
        pair = games_by_black_or_white(games, name)
        assert len(pair) == 2
        for game in pair:
            fake_is_white = game.headers["White"] == name
            assert game.headers["Result"] == ("0-1" if fake_is_white else "1-0")
            assert game.headers["Termination"] == termination
            side = "White" if fake_is_white else "Black"
            assert f"{side} {reason}" in game.end().comment or f"{side}'s {reason}" in game.end().comment
            check_replay(game)
        if name in ("crash", "hang", "illegal", "malformed"):
            # The fault came after three good moves, in both games: the crashed or hung engine
            # was killed and a fresh process played the second game from the start.
            for game in pair:
                assert int(game.headers["PlyCount"]) >= 6, game
    assert "Games lost to engine faults: 12" in proc.stdout


@pytest.mark.slow
def test_stockfish_against_xboard_phalanx_with_adjudication(tmp_path):
    _require(STOCKFISH, "stockfish")
    _require(PHALANX, "phalanx")
    pgn = tmp_path / "xboard.pgn"
    proc = run_cli([
        "-engine", f"cmd={STOCKFISH}", "name=sf", "option.UCI_LimitStrength=true", "option.UCI_Elo=1350",
        "option.Hash=16",
        "-engine", f"cmd={PHALANX}", "name=phalanx", "proto=xboard",
        "-each", "tc=1+0.01", "timemargin=100",
        "-games", "2", "-concurrency", "2", "-maxmoves", "40",
        "-resign", "movecount=3", "score=700", "-draw", "movenumber=20", "movecount=4", "score=15",
        "-openings", f"file={BOOK}", "start=5",
        "-pgnout", str(pgn),
    ])
    assert proc.returncode == 0, proc.stderr
    games = read_games(pgn)
    assert len(games) == 2
    assert {g.headers["White"] for g in games} == {"sf", "phalanx"}  # colours swapped
    # The 5th position of the book, reached by its 4 moves from the start position (the engines get them):
    # the PGN starts at the position, with FEN and SetUp as fastchess writes it. Same opening twice.
    fifth = chess.Board(open(BOOK).readlines()[4])
    comment = re.compile(r"^([+-]\d+\.\d\d|[+-]M\d+)/\d+ \d+\.\d{3}s|^\d+\.\d{3}s")
    for game in games:
        assert game.headers["SetUp"] == "1"
        check_replay(game)
        assert book_position(game).epd() == fifth.epd()
        assert game.headers["TimeControl"] == "1+0.01"
        assert game.headers["Termination"] in ("normal", "adjudication")
        assert int(game.headers["PlyCount"]) <= 80
        comments = [node.comment for node in game.mainline()]
        assert comments and all(comment.match(c) for c in comments), comments[:5]
    assert "Score of sf vs phalanx:" in proc.stdout and "Ptnml(0-2):" in proc.stdout


@pytest.mark.serial
@pytest.mark.slow
def test_fairymax_without_setboard_plays_the_book_as_moves(tmp_path):
    """Fairy-Max declares setboard=0: EPD openings reach it as moves from the start position."""
    _require(STOCKFISH, "stockfish")
    _require(FAIRYMAX, "fairymax")
    pgn = tmp_path / "fairymax.pgn"
    proc = run_cli([
        "-engine", f"cmd={FAIRYMAX}", "name=fairymax", "proto=xboard",
        "-engine", f"cmd={STOCKFISH}", "name=sf", "option.UCI_LimitStrength=true",
        "-each", "tc=1+0.01", "timemargin=100", "-games", "2", "-concurrency", "2", "-maxmoves", "60",
        "-openings", f"file={BOOK}", "order=random", "-srand", "5", "-pgnout", str(pgn),
    ])
    assert proc.returncode == 0, proc.stderr
    games = read_games(pgn)
    assert len(games) == 2 and {g.headers["White"] for g in games} == {"fairymax", "sf"}
    assert book_position(games[0]).epd() == book_position(games[1]).epd()
    for game in games:
        # Fairy-Max got the 4 plies of the 2moves_v1 line as moves; the PGN starts at the position.
        assert game.headers["SetUp"] == "1" and "book" not in [n.comment for n in game.mainline()]
        check_replay(game)
    assert "Games lost to engine faults" not in proc.stdout, proc.stdout


def test_engine_without_setboard_refuses_fen_openings_before_any_game(tmp_path):
    _require(STOCKFISH, "stockfish")
    _require(FAIRYMAX, "fairymax")
    pgn = tmp_path / "none.pgn"
    proc = run_cli(["-engine", f"cmd={FAIRYMAX}", "name=fairymax", "proto=xboard", "-engine", f"cmd={STOCKFISH}",
                    "-each", "tc=1+0.01", "-openings", f"file={DEEP_BOOK}", "-pgnout", str(pgn)])
    assert proc.returncode == 2
    assert "'fairymax' cannot set up positions (xboard feature setboard=0)" in proc.stderr
    assert not pgn.exists()


@pytest.mark.slow
def test_plot_writes_a_png(tmp_path):
    _require(STOCKFISH, "stockfish")
    png = tmp_path / "elo.png"
    proc = run_cli(["-engine", f"cmd={STOCKFISH}", "name=d1", "depth=1", "-engine", f"cmd={STOCKFISH}", "name=d3",
                    "depth=3", "-games", "4", "-maxmoves", "20", "-plot", str(png)])
    assert proc.returncode == 0, proc.stderr
    assert f"Elo plot written to {png}" in proc.stderr
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (800, 450)  # figsize 8 x 4.5 inches at 100 dpi
    assert len(data) > 10_000  # axes, labels and a curve, not an empty canvas
    import matplotlib.image
    pixels = matplotlib.image.imread(str(png))
    assert pixels.shape[:2] == (450, 800) and pixels.std() > 0.05


@pytest.mark.slow
def test_recover_off_stops_after_a_crash_and_min_pgn_has_no_comments(tmp_path):
    _require(STOCKFISH, "stockfish")
    pgn = tmp_path / "min.pgn"
    args = ["-engine", f"cmd={STOCKFISH}", "name=sf", "depth=1", "-engine", fake("crash"), "name=crash",
            "-each", "tc=1+0.01", "-games", "4", "-recover", "off", "-pgnout", str(pgn), "min"]
    proc = run_cli(args)
    assert proc.returncode == 1, proc.stderr  # stopped before its end: not a finished run (issue 45)
    assert "Stopping: game 1 ended with an engine crash" in proc.stderr
    games = read_games(pgn)
    assert len(games) == 1 and games[0].headers["Termination"] == "abandoned"
    assert "{" not in pgn.read_text()  # min: no comments
    check_replay(games[0])
    proc = run_cli(["-resume", str(pgn) + ".state.json", "-recover", "on"])
    assert proc.returncode == 0, proc.stderr
    games = read_games(pgn)  # a crash stop is not final: -resume plays on, here recovering from crashes
    assert len(games) == 4 and [g.headers["Termination"] for g in games] == ["abandoned"] * 4


@pytest.mark.parametrize("engine_args, message", [
    (["cmd=/nonexistent/engine"], "cannot start"),
    ([f"cmd={STOCKFISH}", "option.Hsh=16"], "has no option 'Hsh'"),
    ([f"cmd={STOCKFISH}", "option.Hash=lots"], "bad value 'lots' for option 'Hash'"),
    ([f"cmd={STOCKFISH}", "proto=xboard"], "failed its start-up check"),
])
def test_misconfigured_engine_stops_the_run_before_any_game(tmp_path, engine_args, message):
    _require(STOCKFISH, "stockfish")
    pgn = tmp_path / "none.pgn"
    start = time.monotonic()
    proc = run_cli(["-engine", f"cmd={STOCKFISH}", "name=good", "-engine", "name=bad", *engine_args,
                    "-each", "depth=1", "-games", "2", "-startup-timeout", "3", "-pgnout", str(pgn)])
    assert proc.returncode == 2
    assert message in proc.stderr and "error" in proc.stderr
    assert not pgn.exists() or pgn.read_text() == ""
    assert time.monotonic() - start < 20


@pytest.mark.slow
def test_sprt_stops_when_a_bound_is_crossed(tmp_path):
    _require(STOCKFISH, "stockfish")
    pgn = tmp_path / "sprt.pgn"
    proc = run_cli(["-engine", f"cmd={STOCKFISH}", "name=sf", "depth=1", "-engine", fake("illegal", 0),
                    "name=illegal", "-each", "tc=1+0.01", "-games", "40",
                    "-sprt", "elo0=0", "elo1=200", "alpha=0.05", "beta=0.05", "model=logistic",
                    "-pgnout", str(pgn), "-report-every", "1"])
    assert proc.returncode == 0, proc.stderr
    # Every pair is won twice; the logistic LLR passes log(0.95/0.05) = 2.94 at the 8th pair (hand: 2.93 at 7).
    assert len(read_games(pgn)) == 16
    assert "H1 accepted" in proc.stdout and "LLR 3.35 [-2.94, 2.94]" in proc.stdout
    assert re.search(r"LLR 2\.93 \[-2\.94, 2\.94\]", proc.stderr)  # reported as it goes


def _read_state(path: Path) -> dict:
    """The state file with its journal, as one JSON object (``{}`` while it is not written yet)."""
    from tournaments.state import load_state, state_as_dict
    try:
        return state_as_dict(load_state(str(path)))
    except ValueError:  # ConfigError: missing, or replaced at this very moment
        return {}


def _state_games(path: Path) -> int:
    return len(_read_state(path).get("games", []))


def kill_after_games(args: list[str], state: Path, games: int, timeout: float) -> dict:
    """Run the runner with `args`, SIGKILL it once `state` records `games` games (or after
    `timeout` s), and return the state file as it was left."""
    runner = subprocess.Popen([sys.executable, "-m", "tournaments", *args], cwd=REPO_ROOT,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + timeout
    while _state_games(state) < games and runner.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    os.kill(runner.pid, signal.SIGKILL)
    runner.wait()
    return _read_state(state)


@pytest.mark.slow
def test_sigkill_then_resume_keeps_every_finished_game_once(tmp_path):
    _require(STOCKFISH, "stockfish")
    pgn = tmp_path / "resume.pgn"
    state = Path(str(pgn) + ".state.json")
    args = ["-engine", f"cmd={STOCKFISH}", "name=a", "-engine", f"cmd={STOCKFISH}", "name=b",
            "-each", "depth=2", "-games", "2", "-rounds", "6", "-concurrency", "2", "-maxmoves", "25",
            "-openings", f"file={BOOK}", "order=random",
            "-srand", "42", "-pgnout", str(pgn)]
    before = kill_after_games(args, state, games=4, timeout=60)
    finished_before = len(before["games"])
    assert 4 <= finished_before < 12, "the run should have been killed part-way"
    kept = pgn.read_bytes()[:before["pgn_offset"]]

    proc = run_cli(["-resume", str(state)])
    assert proc.returncode == 0, proc.stderr
    assert f"resuming after {finished_before} finished games" in proc.stderr
    text = pgn.read_bytes()
    assert text.startswith(kept)  # finished games untouched
    games = read_games(pgn)
    rounds = [g.headers["Round"] for g in games]
    assert len(games) == 12 and len(set(rounds)) == 12  # every game, none twice
    assert sorted(int(r.split(".")[1]) for r in rounds) == list(range(1, 13))
    for game in games:
        check_replay(game)
    assert _state_games(state) == 12


@pytest.mark.serial(cores=1)
@pytest.mark.slow
def test_kestrel_plays_a_match():
    _require(STOCKFISH, "stockfish")
    proc = run_cli(["-engine", f"cmd={sys.executable} -m uci_engine", "name=Kestrel",
                    "-engine", f"cmd={STOCKFISH}", "name=sf", "option.UCI_LimitStrength=true",
                    "option.Move Overhead=200",
                    "-each", "tc=2+0.05", "timemargin=100", "-games", "2", "-maxmoves", "40"], timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "Score of Kestrel vs sf:" in proc.stdout
    assert "Games lost to engine faults" not in proc.stdout, proc.stdout
