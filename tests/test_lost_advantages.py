"""tools.lost_advantages: the games an engine did not win after its score reached the margin."""

from __future__ import annotations

from pathlib import Path

import chess
import pytest
from pgn_files import KESTREL_REFEREE, pgn_file, run_tool, scored_game

from tools import lost_advantages
from tools.clock_stats import read_games

OPPOSITE_BISHOPS = "8/5k2/2b3p1/8/4P3/2B2PP1/5K2/8 w - - 0 1"


GAMES = (
    # Kestrel (White), two pawns up with bishops of opposite colours, calls it +2.50, then +3.10; drawn.
    scored_game("Kestrel", "Stockfish", OPPOSITE_BISHOPS, "1/2-1/2",
                "1. Ke3 {+1.50/20 0.5s} Ke6 {0.00/30 0.1s} 2. Kd4 {+2.50/20 0.5s} Kd6 {0.00/30 0.1s} "
                "3. g4 {+3.10/20 0.5s} Bb5 {0.00/30 0.1s} 4. f4 {+2.20/20 0.5s} Bc6 {0.00/30 0.1s}")
    # Kestrel (Black) reaches +2.10 and loses.
    + scored_game("Stockfish", "Kestrel", chess.STARTING_FEN, "1-0",
                "1. e4 {+0.30/20 0.1s} e5 {+2.10/10 0.2s} 2. Nf3 {+0.30/20 0.1s} Nc6 {-1.00/10 0.2s}")
    # Won games and games that never reached the margin do not count as lost advantages.
    + scored_game("Kestrel", "Stockfish", chess.STARTING_FEN, "1-0", "1. e4 {+2.50/20 0.5s} e5 {0.00/30 0.1s}")
    + scored_game("Kestrel", "Stockfish", chess.STARTING_FEN, "1/2-1/2", "1. e4 {+1.99/20 0.5s} e5 {0.00/30 0.1s}")
    # Neither side is Kestrel.
    + scored_game("Phalanx", "Stockfish", chess.STARTING_FEN, "1/2-1/2", "1. e4 {+5.00/20 0.5s} e5 {0.00/30 0.1s}")
)


@pytest.fixture
def pgn(tmp_path: Path) -> Path:
    return pgn_file(tmp_path, GAMES)


def test_it_finds_the_first_and_highest_scores_of_the_games_not_won(pgn: Path) -> None:
    found, conversions = lost_advantages.find(read_games([pgn]), "Kestrel", 200)
    assert conversions.not_won == 3
    # Four games of Kestrel's: the margin reached in three (one won), its one loss after reaching it.
    assert conversions == lost_advantages.Conversions(games=4, wins=1, reached=3, reached_won=1, losses=1,
                                                      losses_after=1)
    assert lost_advantages.find(read_games([pgn]), "Kestrel", 300)[1] == lost_advantages.Conversions(
        games=4, wins=1, reached=1, reached_won=0, losses=1, losses_after=0)
    assert [(f.result, f.first.score, f.first.ply, f.peak.score, f.peak.ply, f.moves_above) for f in found] == [
        (0, 250, 2, 310, 4, 3), (-1, 210, 1, 210, 1, 1)]
    drawn = found[0]
    assert drawn.colour == chess.WHITE and drawn.plies == 8
    assert chess.Board(drawn.first.fen).piece_at(chess.D4) == chess.Piece(chess.KING, chess.WHITE)


def test_material_and_kind() -> None:
    board = chess.Board(OPPOSITE_BISHOPS)
    assert lost_advantages.material_signature(board, chess.WHITE) == "B3 v B1"
    assert lost_advantages.material_signature(board, chess.BLACK) == "B1 v B3"
    assert lost_advantages.material_balance(board, chess.WHITE) == 2
    assert lost_advantages.position_kind(board) == "opposite bishops"
    kinds = {fen: lost_advantages.position_kind(chess.Board(fen)) for fen in (
        "8/5k2/1b4p1/8/4P3/2B2PP1/5K2/8 w - - 0 1",      # bishops of one colour
        "8/5k2/6p1/8/4P3/5PP1/5K2/8 w - - 0 1",
        "8/5k2/r5p1/8/4P3/5PP1/5K2/R7 w - - 0 1",
        "8/5k2/r5p1/8/4P3/5PP1/5K2/RN6 w - - 0 1",
        chess.STARTING_FEN)}
    assert list(kinds.values()) == ["minors", "pawns", "rooks", "rooks and minors", "queens"]


def test_the_command_with_kestrel_as_referee(pgn: Path) -> None:
    done = run_tool("lost_advantages", "Kestrel", str(pgn), "--referee", KESTREL_REFEREE, "--referee-depth", "6")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "Kestrel: 3 games not won; in 2 of them its score reached +200 cp"
    assert lines[1] == "  reached +200 cp in 3 of 4 games and won 1 of them; 1 of its 1 losses came after reaching it"
    assert "B3 v B1 (+2, opposite bishops)" in lines[2] and "referee " in lines[2]
    assert lines[-1].startswith("referee (real: >= +150 cp at the first or peak move): ")
    tally = lines[-1].split("move): ", 1)[1].split(", ")
    assert sum(int(part.rsplit(" ", 1)[1]) for part in tally) == 2


def test_a_referee_that_is_no_engine_is_a_clear_error(pgn: Path) -> None:
    done = run_tool("lost_advantages", "Kestrel", str(pgn), "--referee", "/nonexistent/stockfish", timeout=60)
    assert done.returncode == 2
    assert "--referee /nonexistent/stockfish: cannot start it as a UCI engine" in done.stderr
    assert "Traceback" not in done.stderr
