"""Smoke test of an installed Kestrel (a wheel in a fresh environment): `python wheel_smoke.py`.

Starts the `kestrel` console script through python-chess, as GUIs and lichess-bot do, and
plays a short game against itself at a fast clock, every move checked by python-chess.
Exits 0 when the game is played through, 1 otherwise.  (Not collected by pytest: it tests
whatever `kestrel` is on the PATH, which is the point for a wheel.)
"""

from __future__ import annotations

import shutil
import sys

import chess
import chess.engine


def main() -> int:
    command = shutil.which("kestrel")
    if command is None:
        print("wheel_smoke: no `kestrel` on the PATH", file=sys.stderr)
        return 1
    engine = chess.engine.SimpleEngine.popen_uci([command], timeout=30)
    try:
        board = chess.Board()
        while not board.is_game_over(claim_draw=True) and board.ply() < 60:
            result = engine.play(board, chess.engine.Limit(white_clock=3, black_clock=3, white_inc=0.05,
                                                           black_inc=0.05))
            if result.move is None or result.move not in board.legal_moves:
                print(f"wheel_smoke: illegal move {result.move} in {board.fen()}", file=sys.stderr)
                return 1
            board.push(result.move)
        print(f"wheel_smoke: {engine.id.get('name')} played {board.ply()} legal plies: {board.fen()}")
        return 0
    finally:
        engine.quit()


if __name__ == "__main__":
    sys.exit(main())
