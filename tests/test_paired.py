"""tools/paired.py: match PGNs read into tournaments/stats.py's statistics, pooled and opening by opening."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from tools import paired
from tournaments.snapshot import fmt_elo
from tournaments.stats import Tally, paired_difference


def write_run(path: Path, results: list[tuple[str, str]], engine: str = "K", opponent: str = "SF") -> str:
    """A runner-style PGN: round r has ENGINE's game as White (r.1) then as Black (r.2)."""
    games = []
    for number, (as_white, as_black) in enumerate(results, 1):
        for index, (white, black, result) in enumerate(((engine, opponent, as_white),
                                                       (opponent, engine, as_black)), 1):
            games.append(f'[White "{white}"]\n[Black "{black}"]\n[Round "{number}.{index}"]\n[Result "{result}"]\n\n'
                         f"1. e4 {{ +0.20/9 0.500s }} e5 {{ -0.10/8 0.250s }} {result}\n")
    path.write_text("\n".join(games))
    return str(path)


def test_stats_pool_the_runs_with_the_pentanomial_of_stats(tmp_path: Path) -> None:
    a = write_run(tmp_path / "a.pgn", [("1-0", "0-1"), ("1/2-1/2", "1/2-1/2")])   # two wins, two draws
    b = write_run(tmp_path / "b.pgn", [("0-1", "1-0"), ("1-0", "*")])            # a lost pair, an unfinished one
    text = paired.stats("K", [a, b])
    # The rounds of each run are its own pairs: 2 points, 1 point (two draws), 0 points.
    tally = Tally(wins=3, losses=2, draws=2, pentanomial=[1, 0, 1, 0, 1])
    elo, low, high = tally.penta_elo_interval()
    assert text == (f"K: 7 games, 3-2-2, 57.1%, LOS {100 * tally.los():.1f}%, pentanomial [1, 0, 1, 0, 1]: "
                    f"Elo {fmt_elo(elo)} ({fmt_elo(low)} .. {fmt_elo(high)})")
    assert elo == 0.0 and low < 0 < high
    assert paired.stats("nobody", [a]) == "nobody: no finished games"


def test_paired_compares_the_same_openings(tmp_path: Path) -> None:
    base = write_run(tmp_path / "base.pgn", [("1-0", "1-0"), ("1/2-1/2", "1/2-1/2"), ("0-1", "1-0")])
    candidate = write_run(tmp_path / "cand.pgn", [("1-0", "0-1"), ("1-0", "1/2-1/2"), ("0-1", "1-0")])
    d = paired_difference([1.0, 0.75, 0.0], [0.5, 0.5, 0.0])
    text = paired.paired("K", [candidate], [base])
    assert text.startswith("3 openings: base 33.3%, candidate 58.3%; difference ")
    assert math.isfinite(d.low) and text.endswith(f"{fmt_elo(d.elo)} ({fmt_elo(d.low)} .. {fmt_elo(d.high)}) Elo")


def test_times_and_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = write_run(tmp_path / "a.pgn", [("1-0", "0-1")])
    # K moved once per game: 0.5 s as White (after 1. e4), 0.25 s as Black (after 1... e5).
    assert paired.times("K", [run]) == ("K: 2 games, 0.4 s per game; per move 0.375 s over its first 30 out of book, "
                                        "0.375 s over all 2")
    assert paired.main(["times", "K", run]) == 0 and "2 games" in capsys.readouterr().out
    assert paired.main(["paired", "K", f"{run},{run}", run]) == 2
    assert paired.main(["nonsense"]) == 2 and "python -m tools.paired" in capsys.readouterr().err


def test_stats_can_leave_out_games_by_their_termination(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--drop "time forfeit" scores a run without the games its Termination tag names; the dropped
    game's pair keeps its other game in W-L-D but leaves the pentanomial."""
    run = write_run(tmp_path / "a.pgn", [("1-0", "0-1"), ("1-0", "1/2-1/2")])     # K: 3 wins, a draw
    # Round 1's first game (K's win as White) ended on Black's flag.
    Path(run).write_text(Path(run).read_text().replace(
        '[Result "1-0"]\n\n', '[Result "1-0"]\n[Termination "time forfeit"]\n\n', 1))
    assert paired.stats("K", [run]).startswith("K: 4 games, 3-0-1, 87.5%")
    tally = Tally(wins=2, losses=0, draws=1, pentanomial=[0, 0, 0, 1, 0])
    elo, low, high = tally.penta_elo_interval()
    assert paired.stats("K", [run], ["time forfeit"]) == (
        f"K: 3 games, 2-0-1, 83.3%, LOS {100 * tally.los():.1f}%, pentanomial [0, 0, 0, 1, 0]: "
        f"Elo {fmt_elo(elo)} ({fmt_elo(low)} .. {fmt_elo(high)})")
    assert paired.main(["stats", "K", run, "--drop", "time forfeit"]) == 0
    assert capsys.readouterr().out.startswith("K: 3 games, 2-0-1")
    assert paired.main(["stats", "K", run, "--drop"]) == 2 and "--drop needs" in capsys.readouterr().err
    assert paired.main(["stats", "K", "--drop", "normal"]) == 2 and "no PGN" in capsys.readouterr().err
