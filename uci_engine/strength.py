"""Human strength levels: `UCI_LimitStrength`/`UCI_Elo` and `Skill Level`.

A weaker Kestrel still plays like a chess player, not like a random mover.  It plays with the
same evaluation as at full strength (the net when `Use NNUE` is on), and a level takes three
things away from it:

- **sight**: a node budget per move, so a weak level sees a few moves ahead and a strong one
  much further (the budget grows about tenfold every few hundred Elo);
- **precision**: it looks at its few best moves (MultiPV) and plays one of them with a chance that
  falls off as `exp(-loss / T)` with its loss against the best, in centipawns;
- **a limit to the damage**: a move that loses more than the level's margin `M` is never played, so
  a strong level never throws away a piece and a weak one drops a pawn or misses a tactic.

As the level falls the budget shrinks and `T` and `M` grow, so the mistakes grow in size and in
number together.  The four numbers are read off a table of anchor levels (`CURVE`), straight
lines between anchors (nodes on a log scale), fitted to games against Stockfish 15.1 at the same
`UCI_Elo` (docs/play.md).  The curve ends where it meets full strength: `UCI_Elo` from there up
(the option's maximum) asks for no weakening.  A level searches on one thread whatever `Threads`
says, so its play does not depend on thread timing; the node budget is the same on any machine.

`search_at_level` is how a level searches and chooses; the UCI loop, the tests and the levels'
signature (tools/levels_record.py) all go through it, so what is tested is what plays.
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from eval.nnue import Network
from search.alphabeta_searcher import AlphaBetaSearcher
from search.board.position import Position
from search.info import Info, SearchInfo, SearchResult
from search.limits import SearchLimits
from search.scores import MATE_CP


@dataclass(frozen=True)
class StrengthLevel:
    """How a limited Kestrel searches and chooses: a point of the curve, fitted or in between."""

    elo: int
    nodes: int              # the most nodes a move is searched with
    lines: int              # MultiPV lines looked at (1: always the best)
    temperature: float      # centipawns: how readily a worse move is played
    margin: float           # centipawns: never a move worse than this

    def chances(self, lines: Sequence[SearchInfo]) -> list[float]:
        """The chance of playing each line's first move (lines without a move get none)."""
        values = [_centipawns(line) if line.pv else -math.inf for line in lines]
        best = max(values, default=-math.inf)
        if self.temperature <= 0:
            weights = [1.0 if value == best else 0.0 for value in values]
        else:
            weights = [math.exp(-(best - value) / self.temperature) if best - value <= self.margin else 0.0
                       for value in values]
        total = sum(weights)
        return [weight / total for weight in weights] if total > 0 else weights

    def choose(self, result: SearchResult, lines: Sequence[SearchInfo], rng: random.Random) -> SearchResult:
        """The move to play: the search's best, or now and then one of the next best lines.  A mate
        the search has found is played as found: a player who sees a mate plays it, and a choice
        among mates of different lengths can wander and lose the win to the 50-move rule."""
        candidates = [line for line in lines if line.pv]
        if len(candidates) < 2 or self.temperature <= 0 or (result.score[0] == "mate" and result.score[1] > 0):
            return result
        chosen = rng.choices(candidates, weights=self.chances(candidates))[0]
        if chosen.pv[0] == result.best_move:
            return result
        return dataclasses.replace(result, best_move=chosen.pv[0], pv=list(chosen.pv),
                                   ponder_move=chosen.pv[1] if len(chosen.pv) > 1 else None,
                                   score=chosen.score)


# The curve (docs/play.md has the games; uci_engine/levels_record.json says which anchors were
# measured, with which net, and binds them to how the levels play).  Fitted with kestrel-8 and ProbCut
# from rounds levels14-k8 to levels17-k8 pooled (each game placed by its node budget), and measured
# by round levels18-k8 (every level within +-75 of its number).  The last anchor is where the curve meets
# full strength: its numbers are what full strength amounts to at 10 s + 0.1 s (no choice among
# lines, more nodes than that clock lets it search), and from its Elo up no weakening is asked for;
# full strength played within +-75 of UCI_Elo 2580 in each of those rounds, so the top stays 2580.
CURVE: tuple[StrengthLevel, ...] = (
    StrengthLevel(1320, nodes=400, lines=4, temperature=58.0, margin=195.8),
    StrengthLevel(1350, nodes=415, lines=4, temperature=57.7, margin=194.6),
    StrengthLevel(1500, nodes=1_228, lines=4, temperature=46.5, margin=158.1),
    StrengthLevel(1700, nodes=3_736, lines=4, temperature=35.4, margin=122.0),
    StrengthLevel(1900, nodes=16_204, lines=3, temperature=24.6, margin=86.9),
    StrengthLevel(2100, nodes=48_751, lines=2, temperature=17.0, margin=61.7),
    StrengthLevel(2300, nodes=200_022, lines=2, temperature=9.7, margin=36.2),
    StrengthLevel(2580, nodes=2_000_000, lines=1, temperature=0.0, margin=0.0),
)
MIN_ELO = CURVE[0].elo
FULL_STRENGTH_ELO = CURVE[-1].elo
# `Skill Level` runs from 0 (MIN_ELO) to this (full strength), as in Stockfish.
MAX_SKILL_LEVEL = 20

# Search techniques a level up to LEVEL_SWITCHES_UP_TO searches without (alpha-beta configure()
# switches), whatever the environment asks.  The curve was fitted without singular extensions, which
# were adopted from games at 2 s + 0.02 s; at a small node budget they cost strength instead: with
# them UCI_Elo 1900 (18,135 nodes) played about 1763 over 120 games, against 1865 without
# (docs/play.md).  Correction history and ProbCut came after the curve too.  Above 2100 a level
# searches as full strength does, so that the curve runs into full strength without a step (singular
# extensions and correction history are worth some 90 Elo at 2 s + 0.02 s together, ProbCut about 13);
# at 2100's budget singular extensions were worth nothing either way (2059 with them, 2065 without,
# kestrel-6), so the step sits where it is smallest.
LEVEL_SWITCHES: dict[str, bool] = {"singular_extension": False, "correction_history": False, "probcut": False}
LEVEL_SWITCHES_UP_TO = 2100

# Against a bare king a level plays its best line with at least this many nodes.  A player who
# has K+Q or K+R against K mates; a level that cannot is a known complaint about limited engines.
# The evaluation gives no sense of progress there (every move keeps the same won score), and at
# 736 nodes the weakest level drew most K+Q v K and K+R v K starts by the 50-move rule, even
# without its randomness (and 20,000 nodes drew one of 16); with 60,000 it mated all 16
# (tests/test_levels.py plays such games).
BARE_KING_NODES = 60_000


def _centipawns(line: SearchInfo) -> float:
    kind, value = line.score
    if kind == "mate":
        return MATE_CP - abs(value) if value > 0 else -MATE_CP + abs(value)
    return float(value)


def between(low: StrengthLevel, high: StrengthLevel, elo: int) -> StrengthLevel:
    """The level at `elo` on the straight line from `low` to `high` (nodes on a log scale); beyond
    them the line carries on (a fit may ask for a weaker bottom)."""
    share = (elo - low.elo) / (high.elo - low.elo)

    def along(a: float, b: float) -> float:
        return a + (b - a) * share

    return StrengthLevel(elo=elo, nodes=round(10 ** along(math.log10(low.nodes), math.log10(high.nodes))),
                         lines=max(1, round(along(low.lines, high.lines))),
                         temperature=along(low.temperature, high.temperature),
                         margin=along(low.margin, high.margin))


def level_for_elo(elo: int, curve: Sequence[StrengthLevel] = CURVE) -> StrengthLevel | None:
    """The level that plays at about `elo`; None from the curve's top up (full strength).  `curve` is
    today's unless the calibration asks what an earlier curve played."""
    if elo >= curve[-1].elo:
        return None
    elo = max(elo, curve[0].elo)
    upper = next(i for i, anchor in enumerate(curve) if anchor.elo > elo)
    return between(curve[upper - 1], curve[upper], elo)


def level_switches(level: StrengthLevel, full: dict[str, bool]) -> dict[str, bool]:
    """The searcher's switches at `level`, from full strength's `full` (LEVEL_SWITCHES says why)."""
    return full | LEVEL_SWITCHES if level.elo <= LEVEL_SWITCHES_UP_TO else dict(full)


def new_level_searcher(level: StrengthLevel, network: Network | None, hash_mb: int = 16) -> AlphaBetaSearcher:
    """A fresh searcher set up as the engine sets one up for `level` (the UCI loop keeps its own,
    with the environment's switches): one thread, the level's switches, `network` (None: the
    weighted evaluation)."""
    searcher = AlphaBetaSearcher(hash_mb=hash_mb, threads=1)
    searcher.configure(**level_switches(level, searcher.switches))
    searcher.set_network(network)
    return searcher


def search_at_level(searcher: LevelSearcher, root: Position, limits: SearchLimits, level: StrengthLevel,
                    rng: random.Random, forward: Callable[[Info], None] = lambda info: None,
                    multipv: int = 1) -> tuple[SearchResult, list[SearchInfo]]:
    """One move at `level`: the search within its node budget, its best `level.lines` lines, and
    the move chosen among them (reports go on to `forward`); the result and the lines."""
    if against_a_bare_king(root):
        level = dataclasses.replace(level, nodes=max(level.nodes, BARE_KING_NODES), lines=1, temperature=0.0)
    searcher.multipv = max(multipv, level.lines)
    limits = dataclasses.replace(limits, nodes=min(limits.nodes or level.nodes, level.nodes))
    lines = LineCollector(forward, level.lines)
    result = searcher.search(root, limits, lines)
    return level.choose(result, lines.complete, rng), lines.complete


def against_a_bare_king(root: Position) -> bool:
    """Whether the side not to move has its king alone."""
    placement = root.fen().split()[0]
    theirs = [piece for piece in placement if piece.isalpha() and piece.islower() == root.turn]
    return theirs in (["k"], ["K"])


def elo_for_skill(skill: int) -> int:
    """`Skill Level` 0..MAX_SKILL_LEVEL evenly on the UCI_Elo scale: 0 is MIN_ELO, the top full
    strength."""
    return round(MIN_ELO + (FULL_STRENGTH_ELO - MIN_ELO) * min(max(skill, 0), MAX_SKILL_LEVEL) / MAX_SKILL_LEVEL)


class LevelSearcher(Protocol):
    """What search_at_level needs of a searcher (both searchers' common face)."""

    multipv: int

    def search(self, position: Position, limits: SearchLimits | None = None,
               on_info: Callable[[Info], None] | None = None) -> SearchResult: ...


class Options(Protocol):
    """What a level reads of the option table (uci_engine/options.py takes its Elo range from here)."""

    def value(self, name: str) -> object: ...
    def integer(self, name: str) -> int: ...


def level_from_options(options: Options) -> StrengthLevel | None:
    """The level the options ask for: UCI_Elo when UCI_LimitStrength is on, else Skill Level;
    None for full strength."""
    if options.value("UCI_LimitStrength"):
        return level_for_elo(options.integer("UCI_Elo"))
    return level_for_elo(elo_for_skill(options.integer("Skill Level")))


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
