"""Human strength levels: `UCI_LimitStrength`/`UCI_Elo` and `Skill Level`.

A weaker Kestrel still plays like a chess player, not like a random mover: it searches
fewer nodes (seeing less deep), looks at its few best moves (MultiPV) and now and then
plays one that is a little worse than the best, with a chance that falls off quickly
with how much worse it is.  Moves that lose more than a level's blunder margin are never
chosen, so low levels make the mistakes of a weak player (an inaccuracy, a missed
tactic), not absurd ones.  The numbers were calibrated against Stockfish 15.1 at the same
`UCI_Elo` (docs/play.md).
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from search.info import Info, SearchInfo, SearchResult
from uci_engine.options import MIN_ELO, OptionTable

# Kestrel's full strength on Stockfish's UCI_Elo scale (docs/play.md): from here up, UCI_Elo
# asks for no weakening at all.
FULL_STRENGTH_ELO = 2250
# The curves below are straight lines in these numbers between MIN_ELO and FULL_STRENGTH_ELO.
LOG10_NODES_AT_MIN, LOG10_NODES_AT_MAX = 3.3, 5.7     # search size: ~2,000 nodes .. 500,000 nodes
TEMPERATURE_AT_MIN, TEMPERATURE_AT_MAX = 30.0, 0.5    # centipawns: how readily a worse move is played
MARGIN_AT_MIN, MARGIN_AT_MAX = 120.0, 2.0             # centipawns: never a move worse than this
LINES = 4                                             # moves considered (MultiPV)
MATE_CP = 100_000                                     # a mate score's size when comparing lines


@dataclass(frozen=True)
class StrengthLevel:
    """How a limited Kestrel searches and chooses."""

    elo: int
    nodes: int              # the most nodes a move is searched with
    lines: int              # MultiPV lines looked at
    temperature: float      # centipawns
    margin: float           # centipawns

    def choose(self, result: SearchResult, lines: Sequence[SearchInfo], rng: random.Random) -> SearchResult:
        """The move to play: the search's best, or now and then one of the next best lines."""
        candidates = [line for line in lines if line.pv]
        if len(candidates) < 2:
            return result
        values = [_centipawns(line) for line in candidates]
        best = max(values)
        weights = [math.exp(-(best - value) / self.temperature) if best - value <= self.margin else 0.0
                   for value in values]
        chosen = rng.choices(candidates, weights=weights)[0]
        if chosen.pv[0] == result.best_move:
            return result
        return dataclasses.replace(result, best_move=chosen.pv[0], pv=list(chosen.pv),
                                   ponder_move=chosen.pv[1] if len(chosen.pv) > 1 else None,
                                   score=chosen.score)


def _centipawns(line: SearchInfo) -> float:
    kind, value = line.score
    if kind == "mate":
        return MATE_CP - abs(value) if value > 0 else -MATE_CP + abs(value)
    return float(value)


def _along(elo: int, at_min: float, at_max: float) -> float:
    share = (min(max(elo, MIN_ELO), FULL_STRENGTH_ELO) - MIN_ELO) / (FULL_STRENGTH_ELO - MIN_ELO)
    return at_min + (at_max - at_min) * share


def level_for_elo(elo: int) -> StrengthLevel | None:
    """The level that plays at about `elo`; None from FULL_STRENGTH_ELO up (full strength)."""
    if elo >= FULL_STRENGTH_ELO:
        return None
    elo = max(elo, MIN_ELO)
    return StrengthLevel(elo=elo, nodes=int(10 ** _along(elo, LOG10_NODES_AT_MIN, LOG10_NODES_AT_MAX)),
                         lines=LINES, temperature=_along(elo, TEMPERATURE_AT_MIN, TEMPERATURE_AT_MAX),
                         margin=_along(elo, MARGIN_AT_MIN, MARGIN_AT_MAX))


def elo_for_skill(skill: int) -> int:
    """`Skill Level` 0..20 on the UCI_Elo scale: 0 is MIN_ELO, 20 full strength."""
    return round(MIN_ELO + (FULL_STRENGTH_ELO - MIN_ELO) * min(max(skill, 0), 20) / 20)


def level_from_options(options: OptionTable) -> StrengthLevel | None:
    """The level the options ask for: UCI_Elo when UCI_LimitStrength is on, else Skill Level."""
    if options.value("UCI_LimitStrength"):
        return level_for_elo(options.integer("UCI_Elo"))
    skill = options.integer("Skill Level")
    return level_for_elo(elo_for_skill(skill)) if skill < 20 else None


class LineCollector:
    """Passes a search's reports on and keeps the lines of its last complete iteration."""

    def __init__(self, forward: Callable[[Info], None], lines: int) -> None:
        self._forward = forward
        self._wanted = lines
        self._current: dict[int, SearchInfo] = {}
        self._depth = -1
        self.complete: list[SearchInfo] = []

    def __call__(self, info: Info) -> None:
        if isinstance(info, SearchInfo):
            if info.depth != self._depth:
                self._depth = info.depth
                self._current = {}
            self._current[info.multipv] = info
            if len(self._current) >= self._wanted or info.multipv == 1:
                self.complete = [self._current[k] for k in sorted(self._current)]
        self._forward(info)
