"""A PNG of the Elo estimate and its 95% error bar against games played.

matplotlib is optional: without it the run still completes and says how to get the plot.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from tournaments.state import FinishedGame
from tournaments.stats import Tally, points


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


def write_plot(path: str, finished: Sequence[FinishedGame], engine: str, opponent: str) -> None:
    """Draw the history to ``path``; raise ``PlotUnavailable`` without matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")  # no display needed
        import matplotlib.pyplot as plt
    except ImportError:
        raise PlotUnavailable("the Elo plot needs matplotlib: pip install matplotlib "
                              "(or pip install 'kestrel-chess[plot]')") from None
    history = elo_history(finished, engine)
    # Early estimates are often infinite (all wins); a plot can only show finite ones.
    finite = [(n, e, lo, hi) for n, e, lo, hi in history if all(map(math.isfinite, (e, lo, hi)))]
    fig, ax = plt.subplots(figsize=(8, 4.5))
    if finite:
        n, elo, low, high = zip(*finite, strict=True)
        ax.plot(n, elo, color="tab:blue", label="Elo estimate")
        ax.fill_between(n, low, high, color="tab:blue", alpha=0.2, label="95% interval")
    ax.axhline(0.0, color="grey", linewidth=0.8)
    ax.set_xlabel("games played")
    ax.set_ylabel("Elo difference")
    ax.set_title(f"{engine} vs {opponent}")
    ax.legend(loc="upper right")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
