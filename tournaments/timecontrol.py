"""Time controls and the clock the runner keeps for each side.

A time control is written the way cutechess-cli writes it: ``40/60+0.6``
(40 moves in 60 s, 0.6 s added per move), ``10+0.1``, ``5`` (sudden death),
``inf``; a fixed time per move is ``st=``, and ``nodes=``/``depth=`` limit the
search itself. The runner, never the engine, decides when a side has flagged.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import Any

import chess.engine

_TC_RE = re.compile(r"^(?:(?P<moves>\d+)/)?(?P<base>[\d.:]+)(?:\+(?P<inc>[\d.]+))?$")


def _seconds(text: str) -> float:
    """Parse ``90``, ``1.5`` or ``1:30`` (minutes:seconds) into seconds."""
    if ":" in text:
        minutes, seconds = text.split(":", 1)
        return 60.0 * float(minutes) + float(seconds)
    return float(text)


@dataclass(frozen=True)
class TimeControl:
    """How long a side may think; ``None`` fields are not limited."""

    base: float | None = None  # seconds on the clock at the start of each period
    increment: float = 0.0
    moves: int | None = None  # moves per period (repeating), None = whole game
    movetime: float | None = None  # fixed seconds per move (st=)
    nodes: int | None = None
    depth: int | None = None
    margin: float = 0.0  # seconds a side may overstep its clock before it flags

    @classmethod
    def parse(cls, tc: str | None = None, *, st: str | None = None, nodes: str | None = None,
              depth: str | None = None, margin: str | None = None) -> TimeControl:
        """Build a time control from cutechess-style strings; raise ``ValueError`` on nonsense."""
        base: float | None = None
        increment = 0.0
        moves: int | None = None
        if tc is not None and tc not in ("inf", "infinite"):
            m = _TC_RE.match(tc.strip())
            if not m:
                raise ValueError(f"bad time control {tc!r} (expected e.g. 40/60+0.6, 10+0.1 or 5)")
            moves = int(m.group("moves")) if m.group("moves") else None
            base = _seconds(m.group("base"))
            increment = float(m.group("inc")) if m.group("inc") else 0.0
            if base <= 0 and increment <= 0:
                raise ValueError(f"time control {tc!r} gives no time at all")
            if moves is not None and moves <= 0:
                raise ValueError(f"time control {tc!r}: moves per period must be positive")
        result = cls(
            base=base, increment=increment, moves=moves,
            movetime=float(st) if st is not None else None,
            nodes=int(nodes) if nodes is not None else None,
            depth=int(depth) if depth is not None else None,
            margin=float(margin) if margin is not None else 0.0,
        )
        if result.movetime is not None and result.movetime <= 0:
            raise ValueError("st= must be positive")
        if result.nodes is not None and result.nodes <= 0 or result.depth is not None and result.depth <= 0:
            raise ValueError("nodes= and depth= must be positive")
        if result.margin < 0:
            raise ValueError("timemargin must not be negative")
        return result

    @property
    def has_clock(self) -> bool:
        return self.base is not None

    @property
    def is_limited(self) -> bool:
        """True if something bounds a move, so that a hang can be told from thinking."""
        return any(x is not None for x in (self.base, self.movetime, self.nodes, self.depth))

    def pgn_string(self) -> str:
        """The value of the PGN ``TimeControl`` tag."""
        parts = []
        if self.base is not None:
            text = f"{self.base:g}" + (f"+{self.increment:g}" if self.increment else "")
            parts.append(f"{self.moves}/{text}" if self.moves else text)
        if self.movetime is not None:
            parts.append(f"st={self.movetime:g}")
        if self.nodes is not None:
            parts.append(f"nodes={self.nodes}")
        if self.depth is not None:
            parts.append(f"depth={self.depth}")
        return " ".join(parts) or "-"

    def scaled(self, factor: float) -> TimeControl:
        """The same control with its times multiplied by ``factor`` (the margin stays: it absorbs latency)."""
        if factor == 1.0:
            return self
        return dataclasses.replace(
            self, base=None if self.base is None else self.base * factor, increment=self.increment * factor,
            movetime=None if self.movetime is None else self.movetime * factor)

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items()}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TimeControl:
        return cls(**data)


@dataclass
class Clock:
    """One side's clock in one game; times in seconds."""

    tc: TimeControl
    remaining: float = field(init=False)
    moves_in_period: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        self.remaining = self.tc.base if self.tc.base is not None else 0.0

    @property
    def remaining_moves(self) -> int | None:
        """Moves left until the next time control, for ``go movestogo``."""
        if self.tc.moves is None:
            return None
        return self.tc.moves - self.moves_in_period

    def deadline(self) -> float | None:
        """Seconds this side may use for the coming move before it flags, or None if unbounded."""
        if self.tc.has_clock:
            return self.remaining + self.tc.margin
        if self.tc.movetime is not None:
            return self.tc.movetime + self.tc.margin
        return None

    def overstepped(self, elapsed: float) -> bool:
        limit = self.deadline()
        return limit is not None and elapsed > limit

    def punch(self, elapsed: float) -> None:
        """Charge a finished move to the clock and add increment and the next period's time."""
        if not self.tc.has_clock:
            return
        # A move inside the margin is legal, but the clock never goes below zero.
        self.remaining = max(0.0, self.remaining - elapsed) + self.tc.increment
        self.moves_in_period += 1
        if self.tc.moves is not None and self.moves_in_period >= self.tc.moves:
            self.moves_in_period = 0
            self.remaining += self.tc.base or 0.0


def build_limit(turn: chess.Color, own: Clock, other: Clock) -> chess.engine.Limit:
    """The ``chess.engine.Limit`` for the side to move, telling it both clocks."""
    white, black = (own, other) if turn == chess.WHITE else (other, own)
    tc = own.tc
    limit = chess.engine.Limit(time=tc.movetime, nodes=tc.nodes, depth=tc.depth)
    if tc.has_clock:
        limit.white_clock = white.remaining if white.tc.has_clock else own.remaining
        limit.black_clock = black.remaining if black.tc.has_clock else own.remaining
        limit.white_inc = white.tc.increment if white.tc.has_clock else tc.increment
        limit.black_inc = black.tc.increment if black.tc.has_clock else tc.increment
        limit.remaining_moves = own.remaining_moves
    return limit
