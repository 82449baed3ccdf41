"""Smoke test of an installed Kestrel (a wheel in a fresh environment): `python wheel_smoke.py`.

Checks that the installed distribution put only the engine's packages into site-packages (no
top-level `tools`: the lab runs from a checkout), then starts the `kestrel` console script
through python-chess, as GUIs and lichess-bot do, and plays a short game against itself at a
fast clock, every move checked by python-chess.  Exits 0 when both hold, 1 otherwise.  (Not
collected by pytest: it tests whatever is installed, which is the point for a wheel.)
"""

from __future__ import annotations

import importlib.metadata
import shutil
import sys

import chess
import chess.engine

DISTRIBUTION = "kestrel-chess"
# The engine, its evaluations and searchers, the UCI front and the runner.
INSTALLED_PACKAGES = {"search", "eval", "uci_engine", "tournaments"}


def installed_top_level() -> set[str]:
    """The top-level names the installed distribution's files sit under in site-packages
    (its metadata folder and the console scripts outside site-packages aside)."""
    files = importlib.metadata.files(DISTRIBUTION) or []
    return {file.parts[0] for file in files
            if file.parts and file.parts[0] != ".." and not file.parts[0].endswith(".dist-info")}


def main() -> int:
    try:
        top_level = installed_top_level()
    except importlib.metadata.PackageNotFoundError:
        print(f"wheel_smoke: {DISTRIBUTION} is not installed", file=sys.stderr)
        return 1
    if top_level != INSTALLED_PACKAGES:
        print(f"wheel_smoke: {DISTRIBUTION} installed {sorted(top_level)}, not {sorted(INSTALLED_PACKAGES)}",
              file=sys.stderr)
        return 1
    print(f"wheel_smoke: {DISTRIBUTION} installed {', '.join(sorted(top_level))}")
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
