"""Watching a run as it goes: the runner tells its observers of every move and of every finished game.

An observer (the live web page is one) only reads: it cannot change the run, and the
coordinator alone still writes the PGN and the state. With the Dask backend the moves
come from the workers as plain dicts (``MoveUpdate.as_dict``), and the observer may be
called from another thread than the event loop's.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any, Protocol

import chess
import chess.engine

from tournaments.state import FinishedGame
from tournaments.timecontrol import Clock


@dataclass(frozen=True)
class MoveUpdate:
    """A game in progress after its latest move (or at its start, ``last`` None)."""

    index: int  # the game's place in the schedule, from 0
    white: str
    black: str
    fen: str
    last: str | None  # the latest move, UCI
    ply: int
    white_clock: float | None  # seconds left, None without a clock
    black_clock: float | None
    turn: str  # "w" or "b": whose clock runs
    score: str | None  # the mover's engine's latest score, White's view: "+0.35", "#-3"

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MoveUpdate:
        """From ``as_dict``'s output; keys it does not know (Dask adds ``worker`` to events) are left out."""
        return cls(**{f.name: data[f.name] for f in fields(cls)})


def white_score(score: chess.engine.PovScore | None) -> str | None:
    if score is None:
        return None
    white = score.white()
    mate = white.mate()
    return f"#{mate}" if mate is not None else f"{(white.score() or 0) / 100:+.2f}"


def move_update(index: int, white: str, black: str, board: chess.Board, clocks: dict[chess.Color, Clock],
                score: chess.engine.PovScore | None) -> MoveUpdate:
    def left(color: chess.Color) -> float | None:
        return clocks[color].remaining if clocks[color].tc.has_clock else None

    last = board.move_stack[-1].uci() if board.move_stack else None
    return MoveUpdate(index, white, black, board.fen(), last, len(board.move_stack), left(chess.WHITE),
                      left(chess.BLACK), "w" if board.turn == chess.WHITE else "b", white_score(score))


class RunObserver(Protocol):
    """What the runner calls; implementations must return at once (they run between engine moves)."""

    def moved(self, update: MoveUpdate) -> None: ...

    def finished(self, game: FinishedGame, pgn: str) -> None: ...
