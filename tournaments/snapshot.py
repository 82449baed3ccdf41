"""Where a run stands, and how its figures are written: what the progress lines and the live display share.

Both ``report`` (plain lines, final tables) and ``live`` (the rich panel) show a ``Snapshot``
with these formats; neither imports the other's display.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from tournaments.sprt import SprtStatus
from tournaments.stats import Tally


@dataclass(frozen=True)
class Snapshot:
    """Where a run stands: what the live display and the periodic lines show."""

    done: int
    running: int
    total: int
    name: str
    tally: Tally
    sprt: SprtStatus | None
    per_minute: float  # games finished per minute since games began (this session)
    eta: float | None  # seconds until the last game, at that rate

    @property
    def left(self) -> int:
        return max(0, self.total - self.done - self.running)


def fmt_duration(seconds: float | None) -> str:
    if seconds is None or not math.isfinite(seconds):
        return "?"
    seconds = int(round(seconds))
    hours, rest = divmod(seconds, 3600)
    return f"{hours}h{rest // 60:02d}m" if hours else f"{rest // 60}m{rest % 60:02d}s"


def fmt_elo(value: float) -> str:
    if not math.isfinite(value):
        return "+inf" if value > 0 else "-inf"
    return f"{value + 0.0:+.1f}" if round(value, 1) != 0 else "0.0"  # no "-0.0"


def fmt_err(value: float) -> str:
    return f"{value:.1f}" if math.isfinite(value) else "inf"
