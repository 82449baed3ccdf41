"""Match statistics: score, Elo and its 95% interval, LOS, draw ratio, pentanomial pairs.

Elo follows the logistic model, score = 1 / (1 + 10^(-Elo/400)). The interval
is the normal approximation on the mean game score, mapped through that curve
(as cutechess-cli reports it); LOS is the normal approximation on wins against
losses, draws carrying no information.  A paired difference compares two runs
that played the same openings (the same ``-srand``), opening by opening.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

Z95 = 1.959963984540054  # two-sided 95% quantile of the normal distribution
NELO_PER_T = 800.0 / math.log(10.0)  # normalized Elo per unit of (mean - 1/2) / sigma


def elo_from_score(score: float) -> float:
    """Logistic Elo difference for an expected score in (0, 1); +-inf at the ends."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def score_from_elo(elo: float) -> float:
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


@dataclass
class Tally:
    """Results of one side (engine or pairing) from its own point of view."""

    wins: int = 0
    losses: int = 0
    draws: int = 0
    # Pair outcomes by points of the pair: index 0 = 0 points (LL) ... 4 = 2 points (WW).
    pentanomial: list[int] = field(default_factory=lambda: [0] * 5)
    # The 1-point pairs split into a win and a loss, and two draws (fastchess's WL/DD ratio).
    wl_pairs: int = 0
    dd_pairs: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.losses + self.draws

    @property
    def score(self) -> float:
        """Mean points per game, 0.5 with no games."""
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.5

    @property
    def draw_ratio(self) -> float:
        return self.draws / self.games if self.games else 0.0

    def add(self, points: float) -> None:
        if points == 1.0:
            self.wins += 1
        elif points == 0.0:
            self.losses += 1
        else:
            self.draws += 1

    def add_pair(self, points: float, draws: bool = False) -> None:
        """Count a pair worth ``points``; ``draws`` says a 1-point pair was two draws rather than a win and a loss."""
        self.pentanomial[int(round(2 * points))] += 1
        if points == 1.0:
            if draws:
                self.dd_pairs += 1
            else:
                self.wl_pairs += 1

    def elo(self) -> float:
        return elo_from_score(self.score)

    def elo_interval(self) -> tuple[float, float, float]:
        """Elo, and the 95% interval (low, high), from the per-game variance of the score."""
        n = self.games
        if n == 0:
            return 0.0, -math.inf, math.inf
        s = self.score
        var = (self.wins * (1 - s) ** 2 + self.draws * (0.5 - s) ** 2 + self.losses * s ** 2) / n
        half = Z95 * math.sqrt(var / n)
        return elo_from_score(s), elo_from_score(s - half), elo_from_score(s + half)

    def elo_error(self) -> float:
        """Half the width of the 95% Elo interval (the ``+-`` figure); inf when unknown."""
        _, low, high = self.elo_interval()
        if not (math.isfinite(low) and math.isfinite(high)):
            return math.inf
        return (high - low) / 2.0

    def los(self) -> float:
        """Likelihood of superiority, in [0, 1]."""
        decisive = self.wins + self.losses
        if decisive == 0:
            return 0.5
        return 0.5 * (1.0 + math.erf((self.wins - self.losses) / math.sqrt(2.0 * decisive)))

    def penta_elo_interval(self) -> tuple[float, float, float]:
        """Elo and 95% interval from pair scores, which counts the pairing's correlation."""
        pairs = sum(self.pentanomial)
        if pairs == 0:
            return 0.0, -math.inf, math.inf
        mean, var = mean_var([(i / 4.0, c / pairs) for i, c in enumerate(self.pentanomial)])
        half = Z95 * math.sqrt(var / pairs)
        return elo_from_score(mean), elo_from_score(mean - half), elo_from_score(mean + half)

    def normalized_elo_error(self) -> float:
        """Half the 95% interval of ``normalized_elo``; inf when undefined."""
        pairs = sum(self.pentanomial)
        if pairs == 0:
            return math.inf
        _, var = mean_var([(i / 4.0, c / pairs) for i, c in enumerate(self.pentanomial)])
        if var <= 0:
            return math.inf
        return Z95 * math.sqrt(var / pairs) / math.sqrt(2.0 * var) * NELO_PER_T

    def normalized_elo(self) -> float | None:
        """nElo from pairs: (mean - 1/2) / per-game sigma * 800/ln 10; None when undefined."""
        pairs = sum(self.pentanomial)
        if pairs == 0:
            return None
        mean, var = mean_var([(i / 4.0, c / pairs) for i, c in enumerate(self.pentanomial)])
        if var <= 0:
            return None
        # A pair score is the mean of two games, so one game's variance is twice the pair's.
        return (mean - 0.5) / math.sqrt(2.0 * var) * NELO_PER_T


def mean_var(pdf: Iterable[tuple[float, float]]) -> tuple[float, float]:
    """Mean and variance of a discrete distribution given as (value, probability)."""
    pdf = list(pdf)
    mean = sum(a * p for a, p in pdf)
    return mean, sum(p * (a - mean) ** 2 for a, p in pdf)


@dataclass(frozen=True)
class PairedDifference:
    """A candidate against a base over the same openings, in Elo at the base's score."""

    pairs: int
    base_score: float  # the base's mean points per game over those pairs
    candidate_score: float
    elo: float  # elo(candidate_score) - elo(base_score)
    low: float  # the 95% interval of that difference
    high: float


def paired_difference(candidate: Sequence[float], base: Sequence[float]) -> PairedDifference:
    """Compare pair scores (points per game of each pair, in [0, 1]) opening by opening.

    ``candidate[i]`` and ``base[i]`` are the two runs' scores on the same opening: the
    difference of the two has far less variance than either run, as the opening's own
    bias cancels.  The interval is the normal approximation on the mean difference
    (sample variance), mapped through the Elo curve at the base's score.
    """
    if len(candidate) != len(base):
        raise ValueError(f"{len(candidate)} candidate pairs against {len(base)} base pairs")
    n = len(base)
    if n == 0:
        return PairedDifference(0, 0.5, 0.5, 0.0, -math.inf, math.inf)
    differences = [c - b for c, b in zip(candidate, base, strict=True)]
    mean = sum(differences) / n
    base_score = sum(base) / n
    at_base = elo_from_score(base_score)
    if n < 2:
        return PairedDifference(n, base_score, base_score + mean, elo_from_score(base_score + mean) - at_base,
                                -math.inf, math.inf)
    half = Z95 * math.sqrt(sum((d - mean) ** 2 for d in differences) / (n - 1) / n)
    return PairedDifference(n, base_score, base_score + mean, elo_from_score(base_score + mean) - at_base,
                            elo_from_score(base_score + mean - half) - at_base,
                            elo_from_score(base_score + mean + half) - at_base)


def points(result: str, white: bool) -> float | None:
    """Points for White (``white=True``) or Black from a PGN result; None for ``*``."""
    value = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}.get(result)
    if value is None:
        return None
    return value if white else 1.0 - value


def tally_results(games: Sequence[tuple[int, str, str, str]], engine: str,
                  opponents: Iterable[str] | None = None) -> Tally:
    """Tally ``engine``'s games, given as (pair id, white, black, result).

    A pair counts toward the pentanomial only when both of its games are
    finished and scored.
    """
    wanted = None if opponents is None else set(opponents)
    tally = Tally()
    pairs: dict[int, list[float]] = {}
    for pair, white, black, result in games:
        if engine not in (white, black):
            continue
        opponent = black if white == engine else white
        if wanted is not None and opponent not in wanted:
            continue
        p = points(result, white == engine)
        if p is None:
            continue
        tally.add(p)
        pairs.setdefault(pair, []).append(p)
    for pair_points in pairs.values():
        if len(pair_points) == 2:
            tally.add_pair(sum(pair_points), draws=pair_points == [0.5, 0.5])
    return tally


class GameRecord(Protocol):
    """What a tally reads of a finished game (``tournaments.state.FinishedGame`` has it)."""

    @property
    def pair(self) -> int: ...
    @property
    def white(self) -> str: ...
    @property
    def black(self) -> str: ...
    @property
    def result(self) -> str: ...


class RunningTally:
    """``tally_results`` of one engine over a list that only grows, reading only the games added since.

    The runner tallies after every game for the SPRT and the progress line; a
    fresh tally costs time in proportion to the games played, charged to the
    engines that are thinking meanwhile, and grows through a long run.
    """

    def __init__(self, engine: str) -> None:
        self.engine = engine
        self._reset(None)

    def _reset(self, games: Sequence[GameRecord] | None) -> None:
        self.games = games  # the list read (kept, so that its id is not reused by another)
        self.count = 0
        self.last: object = None  # games[count - 1], to notice a list changed other than by appending
        self.tally = Tally()
        self.pairs: dict[int, list[float]] = {}

    def update(self, games: Sequence[GameRecord]) -> Tally:
        changed = len(games) < self.count or (self.count > 0 and games[self.count - 1] is not self.last)
        if games is not self.games or changed:
            self._reset(games)  # not the list it has read: start again
        for game in games[self.count:]:
            if self.engine not in (game.white, game.black):
                continue
            p = points(game.result, game.white == self.engine)
            if p is None:
                continue
            self.tally.add(p)
            pair_points = self.pairs.setdefault(game.pair, [])
            pair_points.append(p)
            if len(pair_points) == 2:
                self.tally.add_pair(sum(pair_points), draws=pair_points == [0.5, 0.5])
            elif len(pair_points) == 3:  # as tally_results: only pairs of exactly two games count
                first_two = pair_points[:2]
                self.tally.pentanomial[int(round(2 * sum(first_two)))] -= 1
                if sum(first_two) == 1.0:
                    if first_two == [0.5, 0.5]:
                        self.tally.dd_pairs -= 1
                    else:
                        self.tally.wl_pairs -= 1
        self.count = len(games)
        self.last = games[-1] if games else None
        t = self.tally
        return Tally(t.wins, t.losses, t.draws, list(t.pentanomial), t.wl_pairs, t.dd_pairs)


_RUNNING: dict[tuple[int, str], RunningTally] = {}


def running_tally(games: Sequence[GameRecord], engine: str) -> Tally:
    """``engine``'s tally over ``games``, in time proportional to the games added since the last call."""
    key = (id(games), engine)
    tally = _RUNNING.pop(key, None) or RunningTally(engine)
    _RUNNING[key] = tally  # most recent last; a few lists at a time (the run's, a test's)
    while len(_RUNNING) > 8:
        del _RUNNING[next(iter(_RUNNING))]
    return tally.update(games)
