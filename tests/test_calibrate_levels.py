"""The level calibration's arithmetic (tools/calibrate_levels.py): tallies, the monotone fit, the
proposed curve.  The games themselves are too long for CI; docs/play.md has them."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools import calibrate_levels as cal
from tournaments.stats import Tally
from uci_engine.strength import CURVE, FULL_STRENGTH_ELO, level_for_elo


def measured(elo: int, wins: int, losses: int, draws: int = 0) -> cal.Measurement:
    return cal.Measurement(elo, Tally(wins, losses, draws))


def test_a_tally_counts_kestrels_games_from_either_side(tmp_path: Path) -> None:
    pgn = tmp_path / "level.pgn"
    games = [("Kestrel", "Stockfish", "1-0"), ("Stockfish", "Kestrel", "1-0"), ("Stockfish", "Kestrel", "0-1"),
             ("Kestrel", "Stockfish", "1/2-1/2"), ("Kestrel", "Stockfish", "*")]
    pgn.write_text("".join(f'[White "{w}"]\n[Black "{b}"]\n[Result "{r}"]\n\n{r}\n\n' for w, b, r in games))
    tally = cal.tally_of(pgn)
    assert (tally.wins, tally.losses, tally.draws) == (2, 1, 1)


def test_performance_is_the_number_plus_the_score_s_elo() -> None:
    assert measured(1700, 10, 10).performance == pytest.approx(1700)
    assert measured(1700, 64, 36).performance == pytest.approx(1700 + 100, abs=2)
    assert "| 1700 | 100 | 64-36-0 | 64.0% |" in measured(1700, 64, 36).row()


def test_the_fit_pools_a_level_that_fell_below_a_weaker_one() -> None:
    assert cal.monotone([(1350, 1400), (1700, 1600), (1900, 1550), (2100, 2050)]) == [
        (1350, 1400), (1800, 1575), (2100, 2050)]


def test_the_number_for_a_performance_reads_the_measured_curve() -> None:
    curve = [(1350.0, 1250.0), (1700.0, 1600.0), (2100.0, 1900.0)]
    assert cal.number_for(1600, curve) == pytest.approx(1700)
    assert cal.number_for(1750, curve) == pytest.approx(1900)
    assert cal.number_for(1200, curve) == pytest.approx(1300)     # beyond the ends: one for one
    assert cal.number_for(2000, curve) == pytest.approx(2200)


def test_levels_that_play_too_weak_get_the_settings_of_higher_numbers() -> None:
    weak = [measured(elo, 30, 70) for elo in (1350, 1700, 2100)]     # each about 147 Elo below its number
    proposed = cal.fitted_curve(weak)
    assert proposed[-1] == CURVE[-1] and [a.elo for a in proposed] == [a.elo for a in CURVE]
    for old, new in zip(CURVE[:-1], proposed[:-1], strict=True):
        assert new.nodes > old.nodes and new.temperature < old.temperature
    strong = cal.fitted_curve([measured(elo, 70, 30) for elo in (1350, 1700, 2100)])
    assert strong[0].nodes < CURVE[0].nodes            # below the bottom: the first segment carried on
    assert strong[0].temperature > CURVE[0].temperature and strong[0].nodes >= cal.MIN_NODES
    exact = cal.fitted_curve([measured(elo, 50, 50) for elo in (1350, 1700, 2100)])
    for old, new in zip(CURVE[1:-1], exact[1:-1], strict=True):
        level = level_for_elo(old.elo)
        assert level is not None and abs(new.nodes - level.nodes) <= 1


def test_the_runner_command_resumes_with_the_games_it_lacks(tmp_path: Path) -> None:
    args = cal.parse_arguments(["1700", "--games", "60", "--stockfish", __file__])
    command = cal.runner_command(tmp_path, 1700, args, tmp_path / "x.pgn", played=20)
    assert command[command.index("-rounds") + 1] == "20"
    assert command[command.index("-srand") + 1] == str(args.srand + 1700 + 20)
    assert "option.UCI_Elo=1700" in command and any(part.endswith("UCI_Elo=1700") for part in command)
    assert FULL_STRENGTH_ELO in cal.parse_arguments(["--stockfish", __file__]).levels   # the top is measured too
    with pytest.raises(SystemExit):
        cal.parse_arguments(["--games", "61", "--stockfish", __file__])
