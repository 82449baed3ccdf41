"""A whole game against a real engine, every move checked by python-chess."""

from __future__ import annotations

import io

import chess
import chess.engine
import chess.pgn
import pytest
from conftest import ENGINE_COMMAND, REPO, STOCKFISH, play_with_clocks


@pytest.mark.serial(cores=1)
@pytest.mark.slow
def test_full_game_against_stockfish() -> None:
    kestrel = chess.engine.SimpleEngine.popen_uci(ENGINE_COMMAND, cwd=REPO, timeout=30)
    stockfish = chess.engine.SimpleEngine.popen_uci(STOCKFISH, timeout=30)
    try:
        # Move Overhead: on a busy machine Stockfish's default 10 ms reserve is not enough to keep
        # this test's clock, and a flag would be Stockfish's, not Kestrel's.
        stockfish.configure({"UCI_LimitStrength": True, "UCI_Elo": 1350, "Threads": 1, "Hash": 16,
                             "Move Overhead": 200})
        kestrel.configure({"Hash": 16})
        board = play_with_clocks(kestrel, stockfish, plies=800, clock=4.0, increment=0.05)
    finally:
        kestrel.quit()
        stockfish.quit()
    outcome = board.outcome(claim_draw=True)
    game = chess.pgn.Game.from_board(board)
    assert outcome is not None, f"the game did not end in 800 plies:\n{game}"
    # Replaying the game from its PGN checks every move once more.
    assert chess.pgn.read_game(io.StringIO(str(game))).end().board() == board
