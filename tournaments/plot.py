"""A PNG of the Elo estimate and its 95% error bar against games played.

matplotlib is optional: without it the run still completes and says how to get the plot.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from tournaments.config import SprtConfig
from tournaments.install import install_hint
from tournaments.sprt import sprt_status
from tournaments.state import FinishedGame
from tournaments.stats import Tally, points, tally_results


class PlotUnavailable(RuntimeError):
    """matplotlib is not installed."""


def elo_history(finished: Sequence[FinishedGame], engine: str) -> list[tuple[int, float, float, float]]:
    """(games, Elo, low, high) of ``engine`` after each of its scored games, in finishing order."""
    tally = Tally()
    history = []
    for game in finished:
        if engine not in (game.white, game.black):
            continue
        p = points(game.result, game.white == engine)
        if p is None:
            continue
        tally.add(p)
        elo, low, high = tally.elo_interval()
        history.append((tally.games, elo, low, high))
    return history


def llr_history(finished: Sequence[FinishedGame], engine: str, sprt: SprtConfig,
                points_wanted: int = 300) -> list[tuple[int, float]]:
    """(games, LLR) of the SPRT on ``engine``'s pairs, at up to ``points_wanted`` points along the run."""
    games = [(g.pair, g.white, g.black, g.result) for g in finished]
    n = len(games)
    if n == 0:
        return []
    step = max(1, n // points_wanted)
    marks = sorted(set(range(step, n + 1, step)) | {n})
    history = []
    for k in marks:
        penta = tally_results(games[:k], engine).pentanomial
        history.append((k, sprt_status(sprt.elo0, sprt.elo1, sprt.alpha, sprt.beta, penta, sprt.model).llr))
    return history


def write_plot(path: str, finished: Sequence[FinishedGame], engine: str, opponent: str,
               sprt: SprtConfig | None = None) -> None:
    """Draw the history to ``path`` (and the SPRT's LLR below it); raise ``PlotUnavailable`` without matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")  # no display needed
        import matplotlib.pyplot as plt
    except ImportError:
        raise PlotUnavailable(f"the Elo plot needs matplotlib: {install_hint('plot')}") from None
    history = elo_history(finished, engine)
    # Early estimates are often infinite (all wins); a plot can only show finite ones.
    finite = [(n, e, lo, hi) for n, e, lo, hi in history if all(map(math.isfinite, (e, lo, hi)))]
    if sprt is None:
        fig, ax = plt.subplots(figsize=(8, 4.5))
    else:
        fig, (ax, llr_ax) = plt.subplots(2, 1, figsize=(8, 7), sharex=True, height_ratios=(3, 2))
        llr = llr_history(finished, engine, sprt)
        lower, upper = math.log(sprt.beta / (1 - sprt.alpha)), math.log((1 - sprt.beta) / sprt.alpha)
        if llr:
            games, values = zip(*llr, strict=True)
            llr_ax.plot(games, values, color="tab:green", label="LLR")
        llr_ax.axhline(upper, color="tab:red", linestyle="--", linewidth=0.8, label=f"H1 at {upper:.2f}")
        llr_ax.axhline(lower, color="tab:purple", linestyle="--", linewidth=0.8, label=f"H0 at {lower:.2f}")
        llr_ax.set_ylabel(f"SPRT LLR [{sprt.elo0:g}, {sprt.elo1:g}]")
        llr_ax.set_xlabel("games played")
        llr_ax.legend(loc="upper left")
    if finite:
        n, elo, low, high = zip(*finite, strict=True)
        ax.plot(n, elo, color="tab:blue", label="Elo estimate")
        ax.fill_between(n, low, high, color="tab:blue", alpha=0.2, label="95% interval")
    ax.axhline(0.0, color="grey", linewidth=0.8)
    if sprt is None:
        ax.set_xlabel("games played")
    ax.set_ylabel("Elo difference")
    ax.set_title(f"{engine} vs {opponent}")
    ax.legend(loc="upper right")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
