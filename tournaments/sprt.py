"""The sequential probability ratio test on game pairs, as current engine testing runs it.

The test is a generalized SPRT: under each hypothesis the distribution of
pair outcomes is the one closest to what was observed (maximum likelihood)
that satisfies the hypothesis, and the log-likelihood ratio is the observed
counts weighted by the log of the two fitted distributions' ratio.

Two ways to state a hypothesis:
* logistic: the expected score is that of a logistic Elo difference;
* normalized (the default): (mean - 1/2) / sigma, with sigma the standard
  deviation of one game, equals nElo / (800 / ln 10); for pairs, whose mean is
  over two games, the constraint is on the pair's t-value, sqrt(2) times larger.
Empty outcome classes get a tiny count, so that the fit stays inside the simplex.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from tournaments.stats import NELO_PER_T, mean_var, score_from_elo

Pdf = list[tuple[float, float]]
EPSILON_COUNT = 1e-3


def _observed(counts: Sequence[float]) -> tuple[float, Pdf]:
    """Total count and the observed distribution over scores 0 .. 1 (empties nudged above zero)."""
    counts = [max(EPSILON_COUNT, float(c)) for c in counts]
    total = sum(counts)
    last = len(counts) - 1
    return total, [(i / last, c / total) for i, c in enumerate(counts)]


def _solve_secular(pdf: Pdf) -> float:
    """The x with sum p_i a_i / (1 + x a_i) = 0, inside the interval where every 1 + x a_i > 0.

    The left side falls strictly with x, so bisection finds the single root.
    """
    low_a = min(a for a, _ in pdf)
    high_a = max(a for a, _ in pdf)
    if low_a >= 0 or high_a <= 0:
        raise ValueError("the constraint cannot be met: all shifted values have one sign")
    lo, hi = -1.0 / high_a, -1.0 / low_a
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        value = sum(p * a / (1.0 + mid * a) for a, p in pdf)
        if value > 0:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-15:
            break
    return 0.5 * (lo + hi)


def mle_expected_score(observed: Pdf, score: float) -> Pdf:
    """The distribution nearest ``observed`` (max likelihood) whose mean is ``score``.

    Lagrange multipliers give p_i = q_i / (1 + x (a_i - score)), x from the secular equation.
    """
    shifted = [(a - score, q) for a, q in observed]
    x = _solve_secular(shifted)
    return [(a, q / (1.0 + x * (a - score))) for a, q in observed]


def mle_t_value(observed: Pdf, reference: float, t: float) -> Pdf:
    """The distribution nearest ``observed`` with (mean - reference) / sigma = ``t``.

    The constraint is not linear in p, so it is linearised at the current
    estimate (the gradient of sigma is ((a - mu)^2 - sigma^2) / (2 sigma) up to a
    constant) and the linear problem is solved again until the estimate settles.
    """
    pdf = [(a, 1.0 / len(observed)) for a, _ in observed]
    for _ in range(100):
        mu, var = mean_var(pdf)
        sigma = math.sqrt(var)
        shifted = [(a - reference - t * sigma * (1.0 + ((a - mu) / sigma) ** 2) / 2.0, q)
                   for a, q in observed]
        x = _solve_secular(shifted)
        new = [(a, q / (1.0 + x * s)) for (a, q), (s, _) in zip(observed, shifted, strict=True)]
        change = max(abs(p - r) for (_, p), (_, r) in zip(pdf, new, strict=True))
        pdf = new
        if change < 1e-12:
            break
    return pdf


def _llr(total: float, observed: Pdf, pdf0: Pdf, pdf1: Pdf) -> float:
    return total * sum(q * math.log(p1 / p0) for (_, q), (_, p0), (_, p1) in zip(observed, pdf0, pdf1, strict=True))


def llr_logistic(elo0: float, elo1: float, counts: Sequence[float]) -> float:
    """LLR of H1 (Elo = elo1) against H0 (Elo = elo0), logistic Elo; counts are trinomial (L, D, W)
    or pentanomial (0, 1/2, 1, 3/2, 2 points per pair)."""
    total, observed = _observed(counts)
    pdf0 = mle_expected_score(observed, score_from_elo(elo0))
    pdf1 = mle_expected_score(observed, score_from_elo(elo1))
    return _llr(total, observed, pdf0, pdf1)


def llr_normalized(nelo0: float, nelo1: float, counts: Sequence[float]) -> float:
    """LLR of H1 (nElo = nelo1) against H0 (nElo = nelo0); counts as in ``llr_logistic``."""
    total, observed = _observed(counts)
    scale = math.sqrt(2.0) if len(counts) == 5 else 1.0
    t0, t1 = (nelo / NELO_PER_T * scale for nelo in (nelo0, nelo1))
    pdf0 = mle_t_value(observed, 0.5, t0)
    pdf1 = mle_t_value(observed, 0.5, t1)
    return _llr(total, observed, pdf0, pdf1)


@dataclass(frozen=True)
class SprtStatus:
    llr: float
    lower: float  # log(beta / (1 - alpha)): at or below it, H0 is accepted
    upper: float  # log((1 - beta) / alpha): at or above it, H1 is accepted

    @property
    def decision(self) -> str:
        """``"H1"``, ``"H0"`` or ``""`` while the test goes on."""
        if self.llr >= self.upper:
            return "H1"
        if self.llr <= self.lower:
            return "H0"
        return ""


def sprt_status(elo0: float, elo1: float, alpha: float, beta: float, pentanomial: Sequence[int],
                model: str = "normalized") -> SprtStatus:
    """The test's state after the pairs counted in ``pentanomial``."""
    lower = math.log(beta / (1.0 - alpha))
    upper = math.log((1.0 - beta) / alpha)
    if sum(pentanomial) == 0:
        return SprtStatus(0.0, lower, upper)
    llr_fn = llr_normalized if model == "normalized" else llr_logistic
    return SprtStatus(llr_fn(elo0, elo1, pentanomial), lower, upper)
