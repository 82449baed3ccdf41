"""What the user reads: the progress line while games run and the result tables at the end."""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TextIO

from tournaments.config import EngineConfig, TournamentConfig
from tournaments.live import LiveDisplay, LiveUnavailable
from tournaments.snapshot import Snapshot, fmt_duration, fmt_elo, fmt_err
from tournaments.sprt import SprtStatus, sprt_status
from tournaments.state import FinishedGame
from tournaments.stats import NELO_PER_T, Z95, Tally, running_tally, tally_results


def _games(finished: Sequence[FinishedGame]) -> list[tuple[int, str, str, str]]:
    return [(g.pair, g.white, g.black, g.result) for g in finished]


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


def _div(a: float, b: float) -> float:
    """``a / b`` as C++ doubles divide (fastchess's arithmetic): inf or nan instead of an exception."""
    if b != 0:
        return a / b
    if a == 0 or math.isnan(a):
        return math.nan
    return math.copysign(math.inf, a)


def _fc_elo(score: float) -> float:
    """fastchess's ``-400 log10(1 / score - 1)``, with its inf and nan at and beyond the ends."""
    x = _div(1.0, score) - 1.0
    if math.isnan(x) or x < 0:
        return math.nan
    if x == 0:
        return math.inf
    return -math.inf if math.isinf(x) else -400.0 * math.log10(x)


@dataclass(frozen=True)
class PentaElo:
    """fastchess's pentanomial Elo (``EloPentanomial``): Elo, nElo and LOS from pair scores."""

    elo: float
    error: float
    nelo: float
    nelo_error: float
    los: float  # in [0, 1]

    @classmethod
    def of(cls, t: Tally) -> PentaElo:
        pairs = sum(t.pentanomial)
        if pairs == 0:
            return cls(math.nan, math.nan, math.nan, math.nan, math.nan)
        values = (0.0, 0.25, 0.5, 0.75, 1.0)  # a pair's mean points per game
        score = sum(v * c for v, c in zip(values, t.pentanomial, strict=True)) / pairs
        variance = sum(c * (v - score) ** 2 for v, c in zip(values, t.pentanomial, strict=True)) / pairs
        half = Z95 * math.sqrt(variance / pairs)
        nelo_scale = _div(1.0, math.sqrt(2.0 * variance)) * NELO_PER_T
        los = (1.0 - math.erf(-_div(score - 0.5, math.sqrt(2.0 * variance / pairs)))) / 2.0
        return cls(_fc_elo(score), (_fc_elo(score + half) - _fc_elo(score - half)) / 2.0,
                   (score - 0.5) * nelo_scale if variance else _div(score - 0.5, 0.0),
                   half * nelo_scale if variance else math.nan, los)


def _fc_number(value: float) -> str:
    """A double as fmt's ``{}`` writes it: the shortest form that reads back, ``10`` for 10.0."""
    text = repr(float(value))
    return text[:-2] if text.endswith(".0") else text


def _fc_time(engine: EngineConfig) -> str:
    """fastchess's time control in its result header: ``10+0.1``, ``40/60``, ``1/move``, ``8 plies``, ``N nodes``."""
    tc = engine.tc
    if tc.base is not None:
        moves = f"{tc.moves}/" if tc.moves else ""
        return f"{moves}{_fc_number(tc.base)}" + (f"+{tc.increment:.2g}" if tc.increment > 0 else "")
    if tc.movetime is not None:
        return f"{_fc_number(tc.movetime)}/move"
    if tc.depth is not None:
        return f"{tc.depth} plies"
    return f"{tc.nodes} nodes" if tc.nodes is not None else ""


def _option(engine: EngineConfig, declared: dict[str, dict[str, str]], name: str) -> str | None:
    """An engine's value of a UCI option: as configured, else its declared default (None if it has none)."""
    for options in (engine.options, declared.get(engine.name, {})):
        for key, value in options.items():
            if key.lower() == name.lower():
                return value
    return None


def _both(first: str, second: str) -> str:
    return first if first == second else f"{first} - {second}"


def fastchess_lines(config: TournamentConfig, finished: Sequence[FinishedGame],
                    declared: dict[str, dict[str, str]] | None = None) -> list[str]:
    """The results block fastchess prints (its ``-output format=fastchess``), with the pentanomial Elo.

    Two engines: fastchess's head-to-head lines, figures from the game pairs
    (``Elo``, ``nElo``, ``LOS``, the pair ``DrawRatio``, ``Ptnml(0-2)`` with the
    WL/DD ratio) and the ``LLR`` line; more engines: its table. ``declared`` holds
    the engines' declared option defaults, for the ``1t, 16MB`` of the header.
    """
    declared = declared or {}
    if len(config.engines) > 2:
        return ["-" * 50, *fastchess_table(config, finished), "-" * 50]
    first, second = config.engines[0], config.engines[1]
    t = headline_tally(config, finished)
    e = PentaElo.of(t)
    p = t.pentanomial
    pairs = sum(p)
    threads = [_option(x, declared, "Threads") for x in (first, second)]
    hashes = [_option(x, declared, "Hash") for x in (first, second)]
    book = config.openings.file.replace("\\", "/").rsplit("/", 1)[-1] if config.openings.file else ""
    header = (f"Results of {first.name} vs {second.name} ({_both(_fc_time(first), _fc_time(second))}, "
              f"{_both(*(f'{v}t' if v else 'NULL' for v in threads))}, "
              f"{_both(*(f'{v}MB' if v else 'NULL' for v in hashes))}{f', {book}' if book else ''}):")
    lines = ["-" * 50, header,
             f"Elo: {e.elo:.2f} +/- {e.error:.2f}, nElo: {e.nelo:.2f} +/- {e.nelo_error:.2f}",
             f"LOS: {100 * e.los:.2f} %, DrawRatio: {100 * _div(p[2], pairs):.2f} %, "
             f"PairsRatio: {_div(p[3] + p[4], p[0] + p[1]):.2f}",
             f"Games: {t.games}, Wins: {t.wins}, Losses: {t.losses}, Draws: {t.draws}, "
             f"Points: {t.wins + 0.5 * t.draws:.1f} ({100 * _div(t.wins + 0.5 * t.draws, t.games):.2f} %)",
             f"Ptnml(0-2): [{', '.join(map(str, p))}], WL/DD Ratio: {_div(t.wl_pairs, t.dd_pairs):.2f}"]
    status = sprt_of(config, finished)
    if status is not None and config.sprt is not None:
        fraction = status.llr / status.upper if status.llr >= 0 else -status.llr / status.lower
        lines.append(f"LLR: {status.llr:.2f} ({100 * fraction:.1f}%) ({status.lower:.2f}, {status.upper:.2f}) "
                     f"[{config.sprt.elo0:.2f}, {config.sprt.elo1:.2f}]")
    lines.append("-" * 50)
    return lines


def fastchess_table(config: TournamentConfig, finished: Sequence[FinishedGame]) -> list[str]:
    """fastchess's table of more than two engines: pentanomial Elo and nElo of each against the field."""
    games = _games(finished)
    rows = [(e.name, tally_results(games, e.name)) for e in config.engines]
    elos = {name: PentaElo.of(t) for name, t in rows}
    # Best first, engines without an Elo (nan) last, as fastchess sorts them.
    rows.sort(key=lambda row: (math.isnan(elos[row[0]].elo), -elos[row[0]].elo if not math.isnan(elos[row[0]].elo)
                               else 0.0))
    width = max([25] + [len(name) for name, _ in rows])
    lines = [f"{'Rank':<4} {'Name':<{width}} {'Elo':>10} {'+/-':>10} {'nElo':>10} {'+/-':>10} {'Games':>10} "
             f"{'Score':>10} {'Draw':>10} {'Ptnml(0-2)':>20}"]
    for rank, (name, t) in enumerate(rows, 1):
        e = elos[name]
        penta = f"[{', '.join(map(str, t.pentanomial))}]"
        lines.append(f"{rank:>4} {name:<{width}} {e.elo:>10.2f} {e.error:>10.2f} {e.nelo:>10.2f} {e.nelo_error:>10.2f} "
                     f"{t.games:>10} {100 * _div(t.wins + 0.5 * t.draws, t.games):>9.1f}% "
                     f"{100 * _div(t.pentanomial[2], sum(t.pentanomial)):>9.1f}% {penta:>20}")
    return lines


def sprt_completed(config: TournamentConfig, finished: Sequence[FinishedGame]) -> str | None:
    """fastchess's ``SPRT ([0.00, 5.00]) completed - H1 was accepted``, once the test has decided."""
    status = sprt_of(config, finished)
    if status is None or config.sprt is None or not status.decision:
        return None
    return f"SPRT ([{config.sprt.elo0:.2f}, {config.sprt.elo1:.2f}]) completed - {status.decision} was accepted"


def final_report(config: TournamentConfig, finished: Sequence[FinishedGame],
                 declared: dict[str, dict[str, str]] | None = None) -> str:
    games = _games(finished)
    first = config.engines[0].name
    lines: list[str] = []
    if config.output == "fastchess":
        lines += fastchess_lines(config, finished, declared)
        completed = sprt_completed(config, finished)
        if completed is not None:
            lines.append(completed)
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
        self.declared: dict[str, dict[str, str]] = {}  # engines' declared option defaults, once probed
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
                self.stream.write("\n".join(fastchess_lines(self.config, finished, self.declared)) + "\n")
            else:
                self.stream.write(plain_line(snap) + f" ({time.monotonic() - self.started:.0f}s)\n")
        self.stream.flush()

    def close(self) -> None:
        if self.live is not None:
            self.live.close()
