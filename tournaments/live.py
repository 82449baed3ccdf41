"""The live terminal display (rich, the optional ``live`` extra): progress, score, Elo, SPRT, speed.

Only used when stderr is a terminal; logs get plain lines (``report.Progress``).
"""

from __future__ import annotations

from typing import Any, TextIO

from tournaments.install import install_hint
from tournaments.snapshot import Snapshot, fmt_duration, fmt_elo, fmt_err


class LiveUnavailable(RuntimeError):
    """rich is not installed."""


class LiveDisplay:
    """A rich ``Live`` panel redrawn after every game; finished games scroll above it."""

    def __init__(self, stream: TextIO, force_terminal: bool | None = None) -> None:
        try:
            from rich.console import Console
            from rich.live import Live
        except ImportError:
            raise LiveUnavailable(f"({install_hint('live')} for a live display; plain progress lines follow)") from None
        self.console = Console(file=stream, force_terminal=force_terminal, highlight=False)
        self.live: Any = Live(console=self.console, auto_refresh=False, transient=False)
        self.live.start()

    def render(self, s: Snapshot) -> Any:
        from rich.progress_bar import ProgressBar
        from rich.table import Table

        t = s.tally
        err = t.elo_error()
        grid = Table.grid(padding=(0, 2))
        grid.add_column(justify="right", style="bold")
        grid.add_column()
        grid.add_row("games", f"{s.done} done, {s.running} running, {s.left} left (of {s.total})")
        grid.add_row("", ProgressBar(total=max(1, s.total), completed=s.done, width=40))
        grid.add_row(s.name, f"W-L-D {t.wins}-{t.losses}-{t.draws}  score {100 * t.score:.1f} %")
        grid.add_row("Elo", f"{fmt_elo(t.elo())} ± {fmt_err(err)}")
        grid.add_row("LOS", f"{100 * t.los():.1f} %")
        if s.sprt is not None:
            verdict = f"  {s.sprt.decision} accepted" if s.sprt.decision else ""
            grid.add_row("SPRT", f"LLR {s.sprt.llr:.2f} in [{s.sprt.lower:.2f}, {s.sprt.upper:.2f}]{verdict}")
        grid.add_row("speed", f"{s.per_minute:.1f} games/min, ETA {fmt_duration(s.eta)}")
        return grid

    def show(self, snapshot: Snapshot, line: str | None = None) -> None:
        if line is not None:
            self.console.print(line)
        self.live.update(self.render(snapshot), refresh=True)

    def close(self) -> None:
        self.live.stop()
