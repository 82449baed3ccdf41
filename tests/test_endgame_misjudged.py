"""tools.endgame_misjudged: an engine's score for the endgame it walked into, against the tables."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO_ROOT, SHARED_DATA
from pgn_files import pgn_file, scored_game
from tool_runs import run_tool_here

from tools import endgame_misjudged
from tools.clock_stats import read_games
from uci_engine.tablebases import Tablebases

SYZYGY = SHARED_DATA / "syzygy"


GAMES = (
    # Kestrel takes the last pawn into KNN v K, a draw, and calls it +11.99.
    scored_game("Kestrel", "Stockfish", "4k3/8/8/8/8/8/3p4/2K1N1N1 w - - 0 1", "1/2-1/2",
                "1. Kxd2 {+11.99/20 0.5s} Ke7 {0.00/30 0.1s}")
    # Kestrel (Black) calls KQ v KP won, and it is.
    + scored_game("Stockfish", "Kestrel", "3qk3/8/8/8/8/8/7P/3K4 b - - 0 1", "0-1",
                "1... Qh4 {+9.00/18 0.4s} 2. Ke2 {-9.50/25 0.1s}")
    # Kestrel calls K v KNN lost; it is a draw.
    + scored_game("Kestrel", "Stockfish", "8/8/8/8/8/5k2/8/K1n1n3 w - - 0 1", "1/2-1/2",
                "1. Kb2 {-5.00/15 0.3s} Ke3 {0.00/30 0.1s}")
    # A game without Kestrel does not count.
    + scored_game("Phalanx", "Stockfish", "4k3/8/8/8/8/8/3p4/2K1N1N1 w - - 0 1", "1/2-1/2",
                "1. Kxd2 {+11.99/20 0.5s} Ke7 {0.00/30 0.1s}")
)


@pytest.fixture
def pgn(tmp_path: Path) -> Path:
    return pgn_file(tmp_path, GAMES)


def test_it_finds_the_drawn_endgame_called_won_and_the_one_called_lost(pgn: Path) -> None:
    tables = Tablebases()
    assert tables.open(str(SYZYGY)) == []
    probe = tables.wdl_prober(True)
    assert probe is not None
    summary = endgame_misjudged.summarise(read_games([pgn]), "Kestrel", probe, 4, 200)
    tables.close()
    assert summary.games == 3 and len(summary.entries) == 3
    won, lost = summary.called_won(200), summary.called_lost(200)
    assert [(e.score, e.truth, e.result) for e in won] == [(1199, 0, 0)]
    assert won[0].fen.startswith("4k3/8/8/8/8/8/3K4/4N1N1 b")
    assert [(e.score, e.truth) for e in lost] == [(-500, 0)]
    # The KQ v KP game was called right: a win.
    assert any(e.score == 900 and e.truth == 1 and e.result == 1 for e in summary.entries)
    # Two draws; Kestrel's score reached +200 in one of them.
    assert (summary.draws, summary.draws_called_won) == (2, 1)
    # A larger margin than the claim judges nothing.
    assert summary.called_won(1500) == [] and summary.called_lost(600) == []


def test_the_command_reports_and_refuses_bad_arguments(pgn: Path, tmp_path: Path) -> None:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "tools.endgame_misjudged", *args], cwd=REPO_ROOT,
                              capture_output=True, text=True, timeout=60)

    done = run("Kestrel", str(pgn), "--syzygy", str(SYZYGY))
    assert done.returncode == 0, done.stderr
    assert "Kestrel: 3 games, 3 reached the tables (4 men) by its own move; there it called 1 won" in done.stdout
    assert "2 draws, in 1 of them its score reached +200 cp" in done.stdout
    assert "called won: +1199 cp, tables: draw, game drawn: 4k3/8/8/8/8/8/3K4/4N1N1 b" in done.stdout
    for args, message in ((("Kestrel", str(pgn), "--syzygy", str(tmp_path)), "no Syzygy tables there"),
                          (("Kestrel", str(tmp_path / "none.pgn"), "--syzygy", str(SYZYGY)), "no such file"),
                          (("Kestrel", str(pgn), "--syzygy", str(SYZYGY), "--margin", "0"), "above 0")):
        refused = run_tool_here("endgame_misjudged", *args)
        assert refused.returncode == 2 and message in refused.stderr and "Traceback" not in refused.stderr
