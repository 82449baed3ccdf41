"""What the user reads: the progress line while games run and the result tables at the end."""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Sequence
from typing import TextIO

from tournaments.config import TournamentConfig
from tournaments.sprt import SprtStatus, sprt_status
from tournaments.state import FinishedGame
from tournaments.stats import Tally, tally_results


def _games(finished: Sequence[FinishedGame]) -> list[tuple[int, str, str, str]]:
    return [(g.pair, g.white, g.black, g.result) for g in finished]


def _fmt_elo(value: float) -> str:
    if not math.isfinite(value):
        return "+inf" if value > 0 else "-inf"
    return f"{value + 0.0:+.1f}" if round(value, 1) != 0 else "0.0"  # no "-0.0"


def _fmt_err(value: float) -> str:
    return f"{value:.1f}" if math.isfinite(value) else "inf"


def headline_tally(config: TournamentConfig, finished: Sequence[FinishedGame]) -> Tally:
    """The first engine's results: against the second in a match, against the field otherwise."""
    return tally_results(_games(finished), config.engines[0].name)


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
        f"Elo difference: {_fmt_elo(elo)} +/- {_fmt_err(err)}, LOS: {100 * tally.los():.1f} %, "
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
        lines.append(f"{rank:>4} {name:<{width}} {_fmt_elo(t.elo()):>7} {_fmt_err(t.elo_error()):>7} {t.games:>6} "
                     f"{100 * t.score:>5.1f}% {100 * t.draw_ratio:>5.1f}%  "
                     f"{f'{t.wins}-{t.losses}-{t.draws}':<12} {t.pentanomial}")
    return lines


def final_report(config: TournamentConfig, finished: Sequence[FinishedGame]) -> str:
    games = _games(finished)
    first = config.engines[0].name
    lines: list[str] = []
    if len(config.engines) == 2:
        lines += match_lines(first, config.engines[1].name, tally_results(games, first))
    else:
        if config.kind == "gauntlet":
            for other in config.engines[1:]:
                lines += match_lines(first, other.name, tally_results(games, first, [other.name]))
                lines.append("")
        lines += table_lines(config, finished)
    status = sprt_of(config, finished)
    if status is not None:
        lines.append(sprt_line(config, status))
    faults = [g for g in finished if g.termination not in ("normal", "adjudication")]
    if faults:
        lines.append(f"Games lost to engine faults: {len(faults)}")
        for g in faults:
            lines.append(f"  game {g.index + 1} ({g.white} - {g.black}) {g.result}: {g.reason}")
    return "\n".join(lines)


class Progress:
    """A live progress bar on a terminal, or a line every few games when stderr is a file."""

    def __init__(self, config: TournamentConfig, total: int, stream: TextIO = sys.stderr) -> None:
        self.config = config
        self.total = total
        self.stream = stream
        self.tty = stream.isatty()
        self.started = time.monotonic()

    def restart(self) -> None:
        """Start the clock when games begin (engine and cluster start-up do not count)."""
        self.started = time.monotonic()

    def update(self, finished: Sequence[FinishedGame], latest: FinishedGame | None) -> None:
        done = len(finished)
        tally = headline_tally(self.config, finished)
        text = (f"{done}/{self.total} games, {self.config.engines[0].name}: "
                f"+{tally.wins} -{tally.losses} ={tally.draws} [{tally.score:.3f}] "
                f"Elo {_fmt_elo(tally.elo())} +/- {_fmt_err(tally.elo_error())}")
        status = sprt_of(self.config, finished)
        if status is not None:
            text += f", LLR {status.llr:.2f} [{status.lower:.2f}, {status.upper:.2f}]"
        if self.tty:
            width = 20
            filled = int(width * done / self.total) if self.total else width
            self.stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {text}\x1b[K")
            if done == self.total:
                self.stream.write("\n")
        else:
            if latest is not None:
                self.stream.write(f"Finished game {latest.index + 1} ({latest.white} vs {latest.black}): "
                                  f"{latest.result} {{{latest.reason}}}\n")
            if done % max(1, self.config.report_every) == 0 or done == self.total:
                self.stream.write(text + f" ({time.monotonic() - self.started:.0f}s)\n")
        self.stream.flush()

    def close(self) -> None:
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()
