"""-tb with tables that cannot be read: a warning, and the games play on."""

import shutil
from pathlib import Path

import chess

from tests.conftest import SHARED_DATA
from tests.test_tournament import check_replay, fake, read_games, run_cli
from tournaments.adjudication import tablebase_verdict

SYZYGY = SHARED_DATA / "syzygy"
KBNK = chess.Board("8/8/8/4k3/8/8/8/KBN5 w - - 0 1")


def _broken_tables(folder: Path) -> Path:
    """KQvK as it should be, KBNvK cut to half its size, KRvK garbage, KBvK empty."""
    folder.mkdir()
    shutil.copy(SYZYGY / "KQvK.rtbw", folder)
    data = (SYZYGY / "KBNvK.rtbw").read_bytes()
    (folder / "KBNvK.rtbw").write_bytes(data[:len(data) // 2])
    (folder / "KRvK.rtbw").write_bytes(b"not a syzygy table at all" * 40)
    (folder / "KBvK.rtbw").write_bytes(b"")
    return folder


def test_a_broken_table_is_reported_once_and_not_probed_again(tmp_path, capsys):
    tb = chess.syzygy.Tablebase()
    assert tb.add_directory(str(_broken_tables(tmp_path / "tb"))) == 4
    for fen in ("8/8/8/4k3/8/8/8/KBN5 w - - 0 1", "8/8/8/8/2k5/8/8/KBN5 b - - 0 1",  # truncated
                "8/8/8/4k3/8/8/8/KR6 w - - 0 1",  # garbage
                "8/8/8/4k3/8/8/8/KB6 w - - 0 1"):  # empty (a draw by the rules anyway, never probed by a game)
        assert tablebase_verdict(chess.Board(fen), tb, 7, False) is None
    assert tablebase_verdict(KBNK, tb, 7, False) is None
    err = capsys.readouterr().err
    assert err.count("Warning: -tb: cannot probe") == 3
    assert err.count("cannot probe KBNvK") == 1 and "KBNvK.rtbw" in err and "invalid file size" in err
    assert "cannot probe KRvK" in err and "cannot probe KBvK" in err
    queen = chess.Board("8/8/8/4k3/8/8/8/KQ6 w - - 0 1")  # the good table still adjudicates
    assert tablebase_verdict(queen, tb, 7, False).reason == "White wins by tablebase"  # type: ignore[union-attr]


def test_a_run_with_a_corrupt_table_plays_on_without_it(tmp_path):
    tables = _broken_tables(tmp_path / "tb")
    book = tmp_path / "kbnk.epd"
    book.write_text("8/8/8/4k3/8/8/8/KBN5 w - - 0 1\n")
    pgn = tmp_path / "tb.pgn"
    proc = run_cli(["-engine", fake("good"), "name=f1", "-engine", fake("good"), "name=f2", "-each", "tc=10+0.1",
                    "-games", "2", "-openings", f"file={book}", "-maxmoves", "6", "-tb", str(tables),
                    "-pgnout", str(pgn)])
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stderr.count("Warning: -tb: cannot probe KBNvK") == 1, proc.stderr  # once for the whole run
    games = read_games(pgn)
    assert len(games) == 2
    for game in games:
        assert "tablebase" not in game.end().comment
        check_replay(game)
