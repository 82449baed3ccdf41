"""PGN text for the tools that read match games: one game from a start position with the runner's
score comments (`{+1.23/12 0.5s}`), and a file of such games."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
# Kestrel itself as a referee engine's command line: the one engine every test machine has.
KESTREL_REFEREE = f"{shlex.quote(sys.executable)} -m uci_engine"


def scored_game(white: str, black: str, fen: str, result: str, moves: str) -> str:
    """One game's PGN: the players, the result, the start position and `moves` with their comments."""
    return (f'[White "{white}"]\n[Black "{black}"]\n[Result "{result}"]\n[SetUp "1"]\n[FEN "{fen}"]\n\n'
            f"{moves} {result}\n\n")


def pgn_file(directory: Path, games: str) -> Path:
    """`games` written to directory/games.pgn."""
    path = directory / "games.pgn"
    path.write_text(games)
    return path


def run_tool(tool: str, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """`python -m tools.TOOL ARGS...` from the repository root, its output captured as text."""
    return subprocess.run([sys.executable, "-m", f"tools.{tool}", *args], cwd=REPO_ROOT, capture_output=True,
                          text=True, timeout=timeout)
