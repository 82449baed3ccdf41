"""PGN text for the tools that read match games: one game from a start position with the runner's
score comments (`{+1.23/12 0.5s}`), and a file of such games."""

from __future__ import annotations

import shlex
import sys
from functools import partial
from pathlib import Path

import tool_runs

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


# The tools that read match games may start a referee engine: they get five minutes.
run_tool = partial(tool_runs.run_tool, timeout=300)
