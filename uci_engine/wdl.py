"""`UCI_ShowWDL`: win, draw and loss chances in per mille, from the WDL model of search/wdl.py."""

from __future__ import annotations

from search.wdl import wdl_probabilities


def wdl_per_mille(score: tuple[str, int], material: int) -> tuple[int, int, int]:
    """UCI's `wdl W D L` for a score ('cp', n) or ('mate', n) from the side to move's view."""
    kind, value = score
    if kind == "mate":
        return (1000, 0, 0) if value > 0 else (0, 0, 1000)
    win, _, loss = wdl_probabilities(value, material)
    wins, losses = round(win * 1000), round(loss * 1000)
    return wins, 1000 - wins - losses, losses
