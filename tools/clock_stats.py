"""How engines spent their clocks, from the runner's PGN: ``python -m tools.clock_stats GAMES.pgn ...``.

Reads the per-move comments the tournament runner writes (``+0.35/12 0.251s, tl=3.120s``;
book moves say ``book``) and prints, per engine: games, time losses, the mean time left on its
clock when the game ended, the mean time spent on its first N moves out of book, and the mean
time per move out of book.  The time left is the last ``tl=`` (fastchess's key; older runs wrote
``timeleft=``) of the engine's moves (``-pgnout ... timeleft=true``); without it, it is worked out
from the ``TimeControl`` tag (base + increments - time spent), which holds for sudden death with or
without increment.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import chess.pgn

SPENT = re.compile(r"(?:^|\s)(\d+(?:\.\d+)?)s(?:,|$)")
TIME_LEFT = re.compile(r"(?:tl|timeleft)=(-?\d+(?:\.\d+)?)s")
SUDDEN_DEATH = re.compile(r"^(\d+(?:\.\d+)?)(?:\+(\d+(?:\.\d+)?))?$")


@dataclass
class EngineClock:
    """One engine's clock figures over the games read."""

    games: int = 0
    time_losses: int = 0
    time_left: list[float] = field(default_factory=list)
    opening_spend: list[float] = field(default_factory=list)
    per_move: list[float] = field(default_factory=list)


@dataclass
class MoveTime:
    """One move of a game: who played it, the seconds it took, the clock after it (if known)."""

    white: bool
    book: bool
    spent: float
    left: float | None


def game_moves(game: chess.pgn.Game) -> Iterator[MoveTime]:
    """The moves of `game` with their times, from the runner's comments."""
    for node in game.mainline():
        comment = node.comment
        white = node.parent.board().turn == chess.WHITE
        if comment.startswith("book"):
            yield MoveTime(white, True, 0.0, None)
            continue
        spent = SPENT.search(comment.split(",")[0])
        left = TIME_LEFT.search(comment)
        yield MoveTime(white, False, float(spent.group(1)) if spent else 0.0,
                       float(left.group(1)) if left else None)


def clock_left(moves: list[MoveTime], time_control: str) -> float | None:
    """Seconds left on a side's clock after `moves`, from the last tl= or the TimeControl tag."""
    for move in reversed(moves):
        if move.left is not None:
            return move.left
    found = SUDDEN_DEATH.match(time_control)
    if not found:
        return None
    base, increment = float(found.group(1)), float(found.group(2) or 0)
    played = [move for move in moves if not move.book]
    return base + increment * len(played) - sum(move.spent for move in played)


def read_games(paths: list[Path]) -> Iterator[chess.pgn.Game]:
    """Every game in the PGN files."""
    for path in paths:
        with path.open(encoding="utf-8", errors="replace") as handle:
            while (game := chess.pgn.read_game(handle)) is not None:
                yield game


def collect(games: Iterable[chess.pgn.Game], opening_moves: int) -> dict[str, EngineClock]:
    """Per engine name, its clock figures over `games`."""
    engines: dict[str, EngineClock] = {}
    for game in games:
        moves = list(game_moves(game))
        loser = {"1-0": "Black", "0-1": "White"}.get(game.headers.get("Result", "*"))
        flagged = game.headers.get("Termination", "") == "time forfeit"
        for white, colour in ((True, "White"), (False, "Black")):
            figures = engines.setdefault(game.headers.get(colour, colour), EngineClock())
            own = [move for move in moves if move.white == white]
            thought = [move.spent for move in own if not move.book]
            figures.games += 1
            figures.time_losses += int(flagged and loser == colour)
            left = clock_left(own, game.headers.get("TimeControl", ""))
            if left is not None:
                figures.time_left.append(left)
            if len(thought) >= opening_moves:
                figures.opening_spend.append(sum(thought[:opening_moves]))
            figures.per_move.extend(thought)
    return engines


def mean(values: list[float]) -> float:
    """The mean, 0 for none."""
    return sum(values) / len(values) if values else 0.0


def table(engines: dict[str, EngineClock], opening_moves: int) -> str:
    """The figures as a Markdown table."""
    lines = [f"| engine | games | time losses | time left at the end (mean) | first {opening_moves} moves out of "
             "book (mean) | per move (mean) |", "|---|---|---|---|---|---|"]
    for name, figures in sorted(engines.items()):
        lines.append(f"| {name} | {figures.games} | {figures.time_losses} | {mean(figures.time_left):.2f} s | "
                     f"{mean(figures.opening_spend):.2f} s ({len(figures.opening_spend)} games) | "
                     f"{mean(figures.per_move):.3f} s |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Print the clock table of the PGN files named on the command line."""
    parser = argparse.ArgumentParser(prog="python -m tools.clock_stats", description=__doc__.split("\n\n")[0])
    parser.add_argument("pgn", nargs="+", type=Path, help="PGN files written by the tournament runner")
    parser.add_argument("--opening-moves", type=int, default=20, help="moves out of book summed (default 20)")
    parser.add_argument("--blocks", type=int, default=1,
                        help="one table per block of consecutive games, in the order recorded: do late games "
                             "of a long run lose more time than early ones? (default 1)")
    args = parser.parse_args(argv)
    if args.blocks < 1:
        parser.error("--blocks must be at least 1")
    missing = [str(path) for path in args.pgn if not path.is_file()]
    if missing:
        print(f"clock_stats: no such file: {', '.join(missing)}", file=sys.stderr)
        return 2
    games = list(read_games(args.pgn))
    if args.blocks == 1:
        print(table(collect(games, args.opening_moves), args.opening_moves))
        return 0
    size = -(-len(games) // args.blocks)
    for start in range(0, len(games), size):
        block = games[start:start + size]
        print(f"games {start + 1}-{start + len(block)}")
        print(table(collect(block, args.opening_moves), args.opening_moves))
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
