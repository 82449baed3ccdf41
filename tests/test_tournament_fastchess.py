"""fastchess/cutechess-cli options in real runs: Chess960, -epdout, -log, -pgnout fields, -tb, colours, -output."""

import re

import chess
import chess.pgn
import pytest
from conftest import SHARED_DATA

from tests.test_tournament import STOCKFISH, _require, check_replay, fake, read_games, run_cli

SYZYGY = str(SHARED_DATA / "syzygy")


@pytest.mark.slow
def test_chess960_match_with_epdout_log_and_move_fields(tmp_path):
    _require(STOCKFISH, "stockfish")
    pgn, epd, log = tmp_path / "960.pgn", tmp_path / "final.epd", tmp_path / "dialogue.log"
    proc = run_cli(["-engine", f"cmd={STOCKFISH}", "name=d1", "depth=1", "-engine", f"cmd={STOCKFISH}", "name=d2",
                    "depth=2", "-each", "option.Threads=1", "-games", "2", "-rounds", "2", "-maxmoves", "15",
                    "-variant", "fischerandom", "-openings", "order=random", "-srand", "11",
                    "-pgnout", str(pgn), "nodes=true", "seldepth=true", "nps=true", "-epdout", str(epd),
                    "-log", str(log)])
    assert proc.returncode == 0, proc.stderr
    games = read_games(pgn)
    assert len(games) == 4
    starts = [g.headers["FEN"] for g in games]
    assert starts[0] == starts[1] and starts[2] == starts[3] and starts[0] != starts[2]  # pairs share a start
    finals = [line.strip() for line in epd.read_text().splitlines()]
    assert len(finals) == 4
    fields = re.compile(r"^[+-]\d+\.\d\d/\d+ \d+\.\d{3}s, n=\d+(, sd=\d+)?(, nps=\d+)?")  # fastchess's keys
    for game, final in zip(games, finals, strict=True):
        assert game.headers["Variant"] == "Chess960" and "ucinewgame" not in game.headers
        board = game.board()
        assert board.chess960 and board.fen() in {o.fen for o in _all960()}
        end = check_replay(game)
        assert chess.Board.from_epd(final, chess960=True)[0].board_fen() == end.board_fen()
        comments = [n.comment for n in game.mainline()]
        assert all(fields.match(c) for c in comments), comments[:3]
    text = log.read_text()
    assert text.count("# game ") == 4
    for name in ("d1", "d2"):
        assert f"White {name} < go depth" in text and f"Black {name} > bestmove" in text
        assert f"{name} < setoption name UCI_Chess960 value true" in text
    assert text.count("< ucinewgame") == 8


def _all960():
    from tournaments.openings import chess960_openings
    return chess960_openings()


@pytest.mark.slow
def test_tablebase_adjudication_and_colours(tmp_path):
    _require(STOCKFISH, "stockfish")
    book = tmp_path / "krpk.epd"
    book.write_text("8/8/8/4k3/8/8/P7/R3K3 w - - 0 1\n")
    pgn = tmp_path / "tb.pgn"
    args = ["-engine", fake("good"), "name=f", "-engine", f"cmd={STOCKFISH}", "name=sf", "depth=1",
            "-each", "tc=1+0.01", "timemargin=200", "-games", "2", "-openings", f"file={book}", "-maxmoves", "3",
            "-pgnout", str(pgn)]
    proc = run_cli([*args, "-tb", SYZYGY, "-reverse", "-wait", "20"])
    assert proc.returncode == 0, proc.stderr
    games = read_games(pgn)
    assert [g.headers["White"] for g in games] == ["sf", "f"]  # -reverse: the second engine starts as White
    for game in games:
        assert game.headers["Termination"] == "adjudication" and game.headers["PlyCount"] == "1"
        assert game.headers["Result"] == "1-0" and game.end().comment.endswith("White wins by tablebase")
        check_replay(game)
    pgn.unlink()
    proc = run_cli([*args, "-tb", SYZYGY, "-tbpieces", "3", "-noswap", "-output", "format=fastchess"])
    assert proc.returncode == 0, proc.stderr
    games = read_games(pgn)
    assert [g.headers["White"] for g in games] == ["f", "f"]  # -noswap
    assert all("maximum length" in g.end().comment for g in games)  # 4 pieces > -tbpieces 3: no tablebase verdict
    assert "Results of f vs sf (1+0.01, NULL - 1t, 1MB - 16MB, krpk.epd):" in proc.stdout
    assert "Games: 2, Wins:" in proc.stdout and "Ptnml(0-2): [" in proc.stdout


def test_a_uci_engine_without_chess960_cannot_play_it(tmp_path):
    _require(STOCKFISH, "stockfish")
    proc = run_cli(["-engine", fake("good"), "name=f", "-engine", f"cmd={STOCKFISH}", "-each", "depth=1",
                    "-variant", "fischerandom", "-pgnout", str(tmp_path / "none.pgn")])
    assert proc.returncode == 2
    assert "engine 'f' does not declare UCI_Chess960" in proc.stderr
