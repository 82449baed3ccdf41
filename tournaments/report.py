"""What the user reads: the progress line while games run and the result tables at the end."""

from __future__ import annotations

import math
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TextIO

from tournaments.config import TournamentConfig
from tournaments.live import LiveDisplay, LiveUnavailable
from tournaments.sprt import SprtStatus, sprt_status
from tournaments.state import FinishedGame
from tournaments.stats import Tally, running_tally, tally_results


def _games(finished: Sequence[FinishedGame]) -> list[tuple[int, str, str, str]]:
    return [(g.pair, g.white, g.black, g.result) for g in finished]


def fmt_elo(value: float) -> str:
    if not math.isfinite(value):
        return "+inf" if value > 0 else "-inf"
    return f"{value + 0.0:+.1f}" if round(value, 1) != 0 else "0.0"  # no "-0.0"


def fmt_err(value: float) -> str:
    return f"{value:.1f}" if math.isfinite(value) else "inf"


def headline_tally(config: TournamentConfig, finished: Sequence[FinishedGame]) -> Tally:
    """The first engine's results: against the second in a match, against the field otherwise."""
    return running_tally(finished, config.engines[0].name)  # after every game: must not grow with the run


def sprt_of(config: TournamentConfig, finished: Sequence[FinishedGame]) -> SprtStatus | None:
    if config.sprt is None:
        return None
    s = config.sprt
    return sprt_status(s.elo0, s.elo1, s.alpha, s.beta, headline_tally(config, finished).pentanomial, s.model)


def sprt_line(config: TournamentConfig, status: SprtStatus) -> str:
    assert config.sprt is not None
    s = config.sprt
    text = (f"SPRT ({s.model}, elo0={s.elo0:g} elo1={s.elo1:g} alpha={s.alpha:g} beta={s.beta:g}): "
            f"LLR {status.llr:.2f} [{status.lower:.2f}, {status.upper:.2f}]")
    if status.decision:
        text += f" - H{status.decision[1]} accepted"
    return text


def match_lines(name: str, opponent: str, tally: Tally) -> list[str]:
    """cutechess-style lines for one engine's results against an opponent (or the field)."""
    elo, err = tally.elo(), tally.elo_error()
    nelo = tally.normalized_elo()
    lines = [
        f"Score of {name} vs {opponent}: {tally.wins} - {tally.losses} - {tally.draws}  "
        f"[{tally.score:.3f}] {tally.games}",
        f"Elo difference: {fmt_elo(elo)} +/- {fmt_err(err)}, LOS: {100 * tally.los():.1f} %, "
        f"DrawRatio: {100 * tally.draw_ratio:.1f} %",
        f"Ptnml(0-2): {tally.pentanomial}" + (f", nElo: {nelo:.1f}" if nelo is not None else ""),
    ]
    return lines


def table_lines(config: TournamentConfig, finished: Sequence[FinishedGame]) -> list[str]:
    """All engines, best first: Elo against the field with its error bar."""
    games = _games(finished)
    rows = [(e.name, tally_results(games, e.name)) for e in config.engines]
    rows.sort(key=lambda row: -row[1].score)
    width = max(len(name) for name, _ in rows)
    lines = [f"{'Rank':>4} {'Name':<{width}} {'Elo':>7} {'+/-':>7} {'Games':>6} {'Score':>6} {'Draw':>6}  "
             f"{'W-L-D':<12} Ptnml(0-2)"]
    for rank, (name, t) in enumerate(rows, 1):
        lines.append(f"{rank:>4} {name:<{width}} {fmt_elo(t.elo()):>7} {fmt_err(t.elo_error()):>7} {t.games:>6} "
                     f"{100 * t.score:>5.1f}% {100 * t.draw_ratio:>5.1f}%  "
                     f"{f'{t.wins}-{t.losses}-{t.draws}':<12} {t.pentanomial}")
    return lines


def fastchess_lines(config: TournamentConfig, finished: Sequence[FinishedGame]) -> list[str]:
    """The first engine's results in fastchess's layout (for tools that parse fastchess output)."""
    first = config.engines[0].name
    opponent = config.engines[1].name if len(config.engines) == 2 else "the field"
    t = headline_tally(config, finished)
    elo, err = t.elo(), t.elo_error()
    nelo, nelo_err = t.normalized_elo(), t.normalized_elo_error()
    p = t.pentanomial
    losing_pairs = p[0] + p[1]
    pairs_ratio = (p[3] + p[4]) / losing_pairs if losing_pairs else math.inf
    tc = config.engines[0].tc.pgn_string()
    book = os.path.basename(config.openings.file) if config.openings.file else "built-in"
    lines = ["-" * 50, f"Results of {first} vs {opponent} ({tc}, {book}):",
             f"Elo: {fmt_elo(elo)} +/- {fmt_err(err)}, nElo: "
             f"{'?' if nelo is None else f'{nelo:.2f}'} +/- {fmt_err(nelo_err)}",
             f"LOS: {100 * t.los():.2f} %, DrawRatio: {100 * t.draw_ratio:.2f} %, PairsRatio: {pairs_ratio:.2f}",
             f"Games: {t.games}, Wins: {t.wins}, Losses: {t.losses}, Draws: {t.draws}, "
             f"Points: {t.wins + 0.5 * t.draws:.1f} ({100 * t.score:.2f} %)",
             f"Ptnml(0-2): [{', '.join(map(str, p))}]"]
    status = sprt_of(config, finished)
    if status is not None and config.sprt is not None:
        lines.append(f"LLR: {status.llr:.2f} ({status.lower:.2f}, {status.upper:.2f}) "
                     f"[{config.sprt.elo0:.2f}, {config.sprt.elo1:.2f}]" + (f" - {status.decision} accepted"
                                                                           if status.decision else ""))
    lines.append("-" * 50)
    return lines


def final_report(config: TournamentConfig, finished: Sequence[FinishedGame]) -> str:
    games = _games(finished)
    first = config.engines[0].name
    lines: list[str] = []
    if config.output == "fastchess":
        lines += fastchess_lines(config, finished)
        if len(config.engines) > 2:
            lines += table_lines(config, finished)
    elif len(config.engines) == 2:
        lines += match_lines(first, config.engines[1].name, tally_results(games, first))
    else:
        if config.kind == "gauntlet":
            for other in config.engines[1:]:
                lines += match_lines(first, other.name, tally_results(games, first, [other.name]))
                lines.append("")
        lines += table_lines(config, finished)
    status = sprt_of(config, finished)
    if status is not None and config.output != "fastchess":
        lines.append(sprt_line(config, status))
    faults = [g for g in finished if g.termination not in ("normal", "adjudication")]
    if faults:
        lines.append(f"Games lost to engine faults: {len(faults)}")
        for g in faults:
            lines.append(f"  game {g.index + 1} ({g.white} - {g.black}) {g.result}: {g.reason}")
    return "\n".join(lines)


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


def plain_line(s: Snapshot) -> str:
    """The periodic progress line for logs (stable wording: tools parse it)."""
    t = s.tally
    text = (f"{s.done}/{s.total} games, {s.name}: +{t.wins} -{t.losses} ={t.draws} [{t.score:.3f}] "
            f"Elo {fmt_elo(t.elo())} +/- {fmt_err(t.elo_error())}, LOS {100 * t.los():.1f} %")
    if s.sprt is not None:
        text += f", LLR {s.sprt.llr + 0.0:.2f} [{s.sprt.lower:.2f}, {s.sprt.upper:.2f}]"
    return text + f", {s.per_minute:.1f} games/min, ETA {fmt_duration(s.eta)}"


class Progress:
    """A live display on a terminal (rich), or a line every few games when stderr is a file."""

    def __init__(self, config: TournamentConfig, total: int, stream: TextIO = sys.stderr) -> None:
        self.config = config
        self.total = total
        self.stream = stream
        self.started = time.monotonic()
        self.recorded = 0  # games recorded since games began (a resumed run counts only its own)
        self.running = 0
        self.live: LiveDisplay | None = None
        if stream.isatty():
            try:
                self.live = LiveDisplay(stream)
            except LiveUnavailable as err:
                stream.write(f"{err}\n")

    def restart(self) -> None:
        """Start the clock when games begin (engine and cluster start-up do not count)."""
        self.started = time.monotonic()
        self.recorded = 0

    def snapshot(self, finished: Sequence[FinishedGame]) -> Snapshot:
        elapsed = time.monotonic() - self.started
        rate = 60.0 * self.recorded / elapsed if elapsed > 0 and self.recorded else 0.0
        remaining = self.total - len(finished)
        eta = 60.0 * remaining / rate if rate > 0 else None
        return Snapshot(len(finished), min(self.running, remaining), self.total, self.config.engines[0].name,
                        headline_tally(self.config, finished), sprt_of(self.config, finished), rate, eta)

    def set_running(self, running: int, finished: Sequence[FinishedGame]) -> None:
        """How many games are being played now; the live display shows it at once."""
        self.running = running
        if self.live is not None:
            self.live.show(self.snapshot(finished))

    def update(self, finished: Sequence[FinishedGame], latest: FinishedGame | None) -> None:
        self.recorded += 1
        snap = self.snapshot(finished)
        line = (f"Finished game {latest.index + 1} ({latest.white} vs {latest.black}): "
                f"{latest.result} {{{latest.reason}}}") if latest is not None else None
        if self.live is not None:
            self.live.show(snap, line)
            return
        if line is not None:
            self.stream.write(line + "\n")
        if snap.done % max(1, self.config.report_every) == 0 or snap.done == self.total:
            if self.config.output == "fastchess":
                self.stream.write("\n".join(fastchess_lines(self.config, finished)) + "\n")
            else:
                self.stream.write(plain_line(snap) + f" ({time.monotonic() - self.started:.0f}s)\n")
        self.stream.flush()

    def close(self) -> None:
        if self.live is not None:
            self.live.close()
