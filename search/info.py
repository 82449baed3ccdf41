"""What a searcher tells its caller: typed progress records and the final result.

Both searchers report through the same records, so the UCI front prints them without
knowing which searcher ran (Stockfish's ``InfoFull``/``InfoIteration`` play this part).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

# ('cp', centipawns) or ('mate', moves: negative when the side to move is mated).
Score = tuple[Literal["cp", "mate"], int]
# 'lowerbound' / 'upperbound' when the score is only a bound (an aspiration failure).
Bound = Literal["lowerbound", "upperbound"]


@dataclass(frozen=True)
class SearchInfo:
    """One line of a search's principal variations, as UCI's `info ... pv` carries it."""

    depth: int
    seldepth: int
    multipv: int
    score: Score
    nodes: int
    nps: int
    hashfull: int
    time: int                       # milliseconds since the clock of this move started
    pv: list[str]
    bound: Bound | None = None
    tbhits: int | None = None
    wdl: tuple[int, int, int] | None = None   # per mille, from the side to move's view


@dataclass(frozen=True)
class CurrentMove:
    """The root move being searched now (sent in long iterations)."""

    depth: int
    move: str
    number: int


@dataclass(frozen=True)
class InfoString:
    """A remark for the user (`info string`)."""

    text: str


Info = SearchInfo | CurrentMove | InfoString
InfoCallback = Callable[[Info], None]


@dataclass
class SearchResult:
    """The outcome of one search."""

    best_move: str                  # '0000' when there is no legal move
    ponder_move: str | None
    score: Score
    depth: int
    nodes: int
    pv: list[str] = field(default_factory=list)
    value: int = 0                  # the internal score: centipawns, or MATE - plies for mates
