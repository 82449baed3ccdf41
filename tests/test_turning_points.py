"""tools.turning_points: the move of each lost game that cost most by a referee's scores."""

from __future__ import annotations

from pathlib import Path

import chess
from pgn_files import KESTREL_REFEREE, pgn_file, run_tool, scored_game
from tool_runs import run_tool_here

from tools import turning_points
from tools.clock_stats import read_games

# Kestrel (White) loses; the scripted referee's scores for White after each ply of the game (index 0:
# the start position, 1: after 1. e4). White's moves cost 0, 0, -10, 240 (Nxe5, to -200), 350 (Nxf7,
# to -600) and 50; Black's -10, -20, 30 (...Nd4), -50 and -300.
LOST_AS_WHITE = scored_game("Kestrel", "Stockfish", chess.STARTING_FEN, "0-1",
                            "1. e4 {+0.30/10 0.1s} e5 {0.00/10 0.1s} 2. Nf3 {+0.20/10 0.1s} Nc6 {0.00/10 0.1s} "
                            "3. Bc4 {+0.50/10 0.1s} Nd4 {0.00/10 0.1s} 4. Nxe5 {+1.00/10 0.1s} Qg5 {0.00/10 0.1s} "
                            "5. Nxf7 {+2.00/10 0.1s} Qxg2 {0.00/10 0.1s} 6. Rf1")
WHITE_SCORES = [30, 30, 20, 20, 0, 10, 40, -200, -250, -600, -900, -950, -1000, -1000]


def scripted(scores: list[int]) -> turning_points.Referee:
    """A referee that answers `scores[ply]` (White's view) and names the first legal move as its best."""
    def referee(board: chess.Board, colour: chess.Color) -> tuple[int, chess.Move | None]:
        white = scores[board.ply()]
        return (white if colour == chess.WHITE else -white), next(iter(board.legal_moves), None)
    return referee


def test_the_turning_point_is_the_costliest_move_until_the_game_is_lost(tmp_path: Path) -> None:
    game = next(read_games([pgn_file(tmp_path, LOST_AS_WHITE)]))
    point = turning_points.turning_point(game, chess.WHITE, -1, scripted(WHITE_SCORES), -300)
    assert point is not None
    assert (point.move, point.ply, point.before, point.after, point.drop, point.own) == (
        "Nxf7", 8, -250, -600, 350, 200)
    before = chess.Board(point.fen)
    assert before.san(next(iter(before.legal_moves))) == point.best
    # Lost already at -150: the scan stops at Nxe5 (to -200), so the later, larger drop is not seen.
    earlier = turning_points.turning_point(game, chess.WHITE, -1, scripted(WHITE_SCORES), -150)
    assert earlier is not None and (earlier.move, earlier.drop) == ("Nxe5", 240)
    # From Black's side the same scores cost Black only ...Nd4 (White's score 10 -> 40).
    black = turning_points.turning_point(game, chess.BLACK, 1, scripted(WHITE_SCORES), -300)
    assert black is not None and (black.move, black.drop, black.own) == ("Nd4", 30, 0)
    # A mate-sized fall is capped; the last move has no score comment.
    mated = WHITE_SCORES[:11] + [-5000, -5000]
    last = turning_points.turning_point(game, chess.WHITE, -1, scripted(mated), -1600)
    assert last is not None and (last.move, last.after, last.drop, last.own) == ("Rf1", -1500, 600, None)


def test_find_takes_the_lost_games_and_the_drawn_ones_when_asked(tmp_path: Path) -> None:
    drawn_as_black = scored_game("Stockfish", "Kestrel", chess.STARTING_FEN, "1/2-1/2", "1. e4 e5 2. Nf3 Nc6")
    won = scored_game("Kestrel", "Stockfish", chess.STARTING_FEN, "1-0", "1. e4 e5")
    others = scored_game("Phalanx", "Stockfish", chess.STARTING_FEN, "0-1", "1. e4 e5")
    pgn = pgn_file(tmp_path, LOST_AS_WHITE + drawn_as_black + won + others)
    found, games = turning_points.find(read_games([pgn]), "Kestrel", scripted(WHITE_SCORES), -300, draws=False)
    assert games == 1 and [(p.result, p.colour, p.move) for p in found] == [(-1, chess.WHITE, "Nxf7")]
    found, games = turning_points.find(read_games([pgn]), "Kestrel", scripted(WHITE_SCORES), -300, draws=True)
    # In the draw Black's moves gain 10 and 20 by these scores: the least gain is the worst move.
    assert games == 2 and [(p.result, p.colour, p.move, p.drop) for p in found] == [
        (-1, chess.WHITE, "Nxf7", 350), (0, chess.BLACK, "e5", -10)]


def test_phase() -> None:
    assert turning_points.phase(chess.Board(), 0) == "opening"
    assert turning_points.phase(chess.Board(), 30) == "middlegame"
    assert turning_points.phase(chess.Board("r2qk2r/8/8/8/8/8/8/R2QK2R w - - 0 1"), 30) == "middlegame"   # 38
    assert turning_points.phase(chess.Board("3qk3/8/8/8/8/8/8/R2QK3 w - - 0 1"), 30) == "endgame"         # 23
    assert turning_points.phase(chess.Board("r1b1k3/8/8/8/8/8/8/R1B1K3 w - - 0 1"), 30) == "endgame"


def test_the_command_with_kestrel_as_referee(tmp_path: Path) -> None:
    # 2. Qg4?? leaves the queen to the bishop on c8: the referee sees it at a shallow depth.
    queen_lost = scored_game("Kestrel", "Stockfish", chess.STARTING_FEN, "0-1",
                             "1. e4 {+0.30/10 0.1s} d5 {0.00/10 0.1s} 2. Qg4 {+0.20/10 0.1s} Bxg4 {+9.00/10 0.1s} "
                             "3. Nf3 {-9.00/10 0.1s} Bxf3 {+9.00/10 0.1s}")
    pgn = pgn_file(tmp_path, queen_lost)
    done = run_tool("turning_points", "Kestrel", str(pgn), "--referee", KESTREL_REFEREE, "--depth", "4")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "Kestrel: 1 games; 1 with a turning point"
    assert lines[1].startswith("  lost: move 2 Qg4 (referee ") and "own score +20), opening, QRRBBNN8 v " in lines[1]
    drop = int(lines[1].split("drop ", 1)[1].split(";")[0])
    assert drop >= 500
    assert "phase: opening 1" in lines and "size: one move of 150 cp or more 1" in lines
    assert "seen: it scored the move 150 cp or more above the referee (did not see it) 1" in lines


def test_bad_arguments_and_a_referee_that_is_no_engine_are_clear_errors(tmp_path: Path) -> None:
    pgn = pgn_file(tmp_path, LOST_AS_WHITE)
    for extra, message in ((["--referee", "/nonexistent/stockfish"],
                            "--referee /nonexistent/stockfish: cannot start it as a UCI engine"),
                           (["--lost", "50"], "--lost below 0")):
        done = run_tool_here("turning_points", "Kestrel", str(pgn), *extra)
        assert done.returncode == 2
        assert message in done.stderr and "Traceback" not in done.stderr
