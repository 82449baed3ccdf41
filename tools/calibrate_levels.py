"""Calibrate the human levels: one round is one command, ``python -m tools.calibrate_levels round NAME``.

A round plays every level of the issue (1350, 1500, 1700, 1900, 2100, 2300 and the top, full strength)
60 games each at 10 s + 0.1 s, appends the ledger rows (``pl-NAME-ELO``, pentanomial counts in the
notes) to docs/experiments.csv, and then either, every level within +-75 Elo of its number over 60
games or more, marks the curve's anchors measured with this engine, or refits the curve in
uci_engine/strength.py (the top anchor moved to where full strength played, a level that missed
between anchors made an anchor) and marks it fitted, not measured (play the next round); where only
full strength missed, only the top moves (to where full strength played), and the levels below it,
whose settings that leaves as they were, are marked measured; either way it re-signs the
calibration record (tools/levels_record.py).  ``--levels`` plays some levels only: an issue level
it skips that plays as the record's signed engine did (the same net, settings and signature) keeps
its recorded games, in the verdict and in the record, so a change that moves only 2300 and the top
needs a round of those two.  ``--pool NAME`` fits a refit with an
earlier round's games too (see below).  ``--dry-run`` prints the
runner commands and writes nothing.  ``python -m tools.calibrate_levels resign --note "..."``
re-signs the record without games, with a note that says why the levels did not move.

The older form plays the levels given and prints, without writing: ``python -m tools.calibrate_levels
[LEVELS] [--fit]``.

Each level plays Stockfish 15.1 set to the same ``UCI_Elo`` (``UCI_LimitStrength`` on both), colours
swapped, from the 2-move book, through the project's runner.  A level's *performance* is its number
plus the Elo difference its score implies: a level that scores 64% at ``UCI_Elo 1700`` plays at about
1800.  Each level's games go to ``runs/NAME-ELO.pgn``; a level whose file already holds the games asked
for is read, not played again, so a run that was stopped resumes.

``--fit`` proposes a new curve for ``uci_engine/strength.py`` from the performances: it draws the
measured performance against the level's number (made monotone), finds for every anchor of the curve
the number whose level performed at the anchor's Elo, and gives the anchor that level's settings.
It is a fixed-point step: play, fit, play again until every level lands in its band.

One round of 60 games a level measures each level to about +/-90 Elo, so a fit from one round
chases noise (round 4's refit overshot).  ``--pool NAME:COMMIT`` adds an earlier round's games
(``runs/NAME-ELO.pgn``, played with COMMIT's curve) to the fit: each of its levels is placed on
today's curve at the number with the same node budget, and the fit weighs every point by its
games; where the games are gone with the machine they were played on, the round's ledger rows
(``--pool NAME``: W-L-D, pentanomial counts and commit) stand in for them.  Pool only rounds played
with the same net: a stronger net makes every node budget stronger.

A pooled round whose commit signed the same calibration record as this checkout (the same net,
level settings and levels signature: its levels played as these do) is a repeated measurement of
the same levels, so a round's verdict is taken over its games and those of every such round
together (``Measurement.repeats``); its table shows both.  Pool every round played on the curve,
not the ones that suit: the ledger keeps them all.
A round of some levels (``--levels``) that carries the recorded games of the others leaves
out of its refit the pooled rows those records already hold (``not_held``): each game counts once.

    python -m tools.calibrate_levels 1350 1500 1700 1900 2100 2300 --games 60 --tc 10+0.1 \\
        --name levels-nnue4 --srand 4701 --fit
"""

from __future__ import annotations

import argparse
import ast
import csv
import dataclasses
import json
import math
import re
import shlex
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from eval.networks import BUILTIN_NET
from tools import levels_record
from tools.paired import games_of
from tools.versus import REPO, WORKTREE, checkout, engine_flags, git
from tournaments.stats import Tally, tally_results
from uci_engine.strength import CURVE, FULL_STRENGTH_ELO, StrengthLevel, between, level_for_elo

STOCKFISH = "/usr/games/stockfish"
OPENINGS = REPO.parent / "shared" / "data" / "openings" / "2moves_v1.epd"
ENGINE = "Kestrel"
MIN_NODES = 50              # a fit never asks for a search smaller than this
ROUND_LEVELS = levels_record.ISSUE_LEVELS             # and the top, full strength
BAND = 75                   # Elo: a level within this of its number is calibrated ...
CALIBRATION_GAMES = 60      # ... over at least this many games
LEDGER = REPO / "docs" / "experiments.csv"
STRENGTH_FILE = REPO / "uci_engine" / "strength.py"


@dataclass(frozen=True)
class Measurement:
    """One level's games against Stockfish at the same UCI_Elo.  `number` is where its settings sit
    on today's curve: its Elo for a level of today's curve, elsewhere for an earlier round's."""

    elo: int
    tally: Tally
    number: float | None = None
    repeats: bool = False         # played as today's level does (the same signed record): counts in the verdict
    ledger: str = ""              # its ledger row(s)

    @property
    def position(self) -> float:
        return self.elo if self.number is None else self.number

    @property
    def performance(self) -> float:
        """Its number plus its score's Elo; a perfect or a null score (an infinite Elo, a handful of
        games) counts as 800, the most a score of 99% says."""
        return self.elo + max(-800.0, min(800.0, self.tally.elo()))

    def row(self) -> str:
        """The level's row of docs/play.md's table."""
        elo, low, high = self.tally.elo_interval()
        t = self.tally
        return (f"| {self.elo} | {t.games} | {t.wins}-{t.losses}-{t.draws} | {100 * t.score:.1f}% | "
                f"{shown(elo)} ({shown(low)} .. {shown(high)}) | {self.performance:.0f} |")


def shown(value: float) -> str:
    """An Elo figure with its sign; a perfect or a null score gives an infinite one."""
    return ("+inf" if value > 0 else "-inf") if math.isinf(value) else f"{value:+.0f}"


def tally_of(pgn: Path) -> Tally:
    """Kestrel's score in a level's PGN (a game's round is its pair)."""
    pairs: dict[str, int] = {}
    return tally_results([(pairs.setdefault(key, len(pairs)), white, black, result)
                          for key, white, black, result in games_of(str(pgn))], ENGINE)


def runner_command(folder: Path, elo: int, args: argparse.Namespace, pgn: Path, played: int = 0) -> list[str]:
    """The runner's command line for a level's games, `played` of them already in `pgn`."""
    strength = ["UCI_LimitStrength=true", f"UCI_Elo={elo}"]
    return ([sys.executable, "-m", "tournaments"]
            + engine_flags(folder, ENGINE, [], strength)
            + ["-engine", f"cmd={args.stockfish}", "name=Stockfish",
               "option.UCI_LimitStrength=true", f"option.UCI_Elo={elo}"]
            + ["-each", f"tc={args.tc}", "option.Hash=16", "option.Threads=1",
               "-games", "2", "-rounds", str((args.games - played + 1) // 2), "-concurrency", str(args.concurrency),
               "-openings", f"file={args.openings}", "order=random", "-srand", str(args.srand + elo + played),
               "-recover", "-pgnout", str(pgn)])


def monotone(points_: Sequence[tuple[float, float]] | Sequence[tuple[float, float, float]]
             ) -> list[tuple[float, float]]:
    """(number, performance[, weight]) points sorted by number, performances pooled where they fall
    and where they share a number (weighted PAVA; a point without a weight weighs 1)."""
    blocks: list[list[float]] = []      # [weighted sum of x, weighted sum of y, weight]
    for point in sorted(points_):
        x, y, w = point if len(point) == 3 else (*point, 1.0)
        blocks.append([w * x, w * y, w])
        while len(blocks) > 1 and (blocks[-2][1] / blocks[-2][2] > blocks[-1][1] / blocks[-1][2]
                                   or math.isclose(blocks[-2][0] / blocks[-2][2], x)):
            last = blocks.pop()
            blocks[-1] = [blocks[-1][i] + last[i] for i in range(3)]
    return [(bx / n, by / n) for bx, by, n in blocks]


def number_for(performance: float, curve: Sequence[tuple[float, float]]) -> float:
    """The level number expected to perform at `performance`, on the measured (monotone) curve;
    beyond its ends, one Elo of number per Elo of performance."""
    if len(curve) == 1 or performance <= curve[0][1]:
        return curve[0][0] + performance - curve[0][1]
    for (x0, y0), (x1, y1) in zip(curve, curve[1:], strict=False):
        if performance <= y1:
            return x0 + (x1 - x0) * (performance - y0) / (y1 - y0) if y1 > y0 else x1
    return curve[-1][0] + performance - curve[-1][1]


def settings_at(number: int) -> StrengthLevel:
    """The settings of the level numbered `number` on today's curve; below its first anchor, its first
    segment carried on (fewer nodes, more randomness), so that a fit can ask for a weaker bottom."""
    if number >= CURVE[0].elo:
        level = level_for_elo(min(number, FULL_STRENGTH_ELO - 1))
        assert level is not None
        return dataclasses.replace(level, elo=number)
    carried = between(CURVE[0], CURVE[1], number)
    return dataclasses.replace(carried, nodes=max(MIN_NODES, carried.nodes), lines=CURVE[0].lines)


def number_with_nodes(level: StrengthLevel | None) -> float:
    """Where a level of some curve sits on today's: the number whose node budget is the same (the
    first segment carried on below the curve); full strength (None) is today's top."""
    if level is None or level.nodes >= CURVE[-1].nodes:
        return FULL_STRENGTH_ELO
    upper = next((i for i, anchor in enumerate(CURVE[1:], 1) if anchor.nodes > level.nodes), len(CURVE) - 1)
    low, high = CURVE[upper - 1], CURVE[upper]
    share = math.log(level.nodes / low.nodes) / math.log(high.nodes / low.nodes)
    return low.elo + share * (high.elo - low.elo)


def curve_of(commit: str) -> tuple[StrengthLevel, ...]:
    """The CURVE of uci_engine/strength.py at `commit`."""
    return curve_in(git("show", f"{commit}:uci_engine/strength.py"))


def curve_in(source: str) -> tuple[StrengthLevel, ...]:
    """The CURVE of a version of uci_engine/strength.py, read from its source (not imported)."""
    for node in ast.parse(source).body:
        if isinstance(node, ast.AnnAssign | ast.Assign):
            targets = [node.target] if isinstance(node, ast.AnnAssign) else node.targets
            if any(isinstance(t, ast.Name) and t.id == "CURVE" for t in targets):
                assert isinstance(node.value, ast.Tuple)
                return tuple(StrengthLevel(*[ast.literal_eval(a) for a in call.args],
                                           **{k.arg: ast.literal_eval(k.value) for k in call.keywords if k.arg})
                             for call in node.value.elts if isinstance(call, ast.Call))
    raise ValueError("no CURVE in this uci_engine/strength.py")


def signed_at(commit: str) -> dict[str, object] | None:
    """What the calibration record of `commit` was signed for (net, settings, levels signature);
    None where that commit had no record."""
    try:
        record = json.loads(git("show", f"{commit}:uci_engine/levels_record.json"))
    except subprocess.CalledProcessError:
        return None
    signed = record.get("signed")
    return signed if isinstance(signed, dict) else None


def pooled_round(spec: str, runs: Path, ledger: Path = LEDGER,
                 signed: dict[str, object] | None = None) -> list[Measurement]:
    """An earlier round's levels, each placed on today's curve by its node budget: from its games
    (`NAME:COMMIT`: runs/NAME-ELO.pgn played with COMMIT's curve) or, where those are gone (games
    do not outlive the machine they were played on), from its ledger rows pl-NAME-ELO, which name
    their commit (`NAME`, or `NAME:COMMIT` to check it).  Its levels repeat today's when its commit
    signed the record `signed` (this checkout's)."""
    name, _, commit = spec.partition(":")
    known: dict[str, bool] = {}

    def repeats(at: str) -> bool:
        """Whether commit `at` signed `signed` (asked of git once a commit: a round's rows share one)."""
        if at not in known:
            known[at] = signed is not None and signed_at(at) == signed
        return known[at]

    pgns = [pgn for pgn in sorted(runs.glob(f"{name}-*.pgn")) if pgn.stem.removeprefix(f"{name}-").isdigit()]
    if pgns:
        if not commit:
            raise ValueError(f"--pool {spec}: say NAME:COMMIT (the commit whose curve played runs/{name}-ELO.pgn)")
        curve, same = curve_of(commit), repeats(commit)
        return [Measurement(elo, tally_of(pgn), number_with_nodes(level_for_elo(elo, curve)), same,
                            f"pl-{name}-{elo}")
                for pgn in pgns for elo in [int(pgn.stem.removeprefix(f"{name}-"))]]
    found = []
    for row in ledger_rows(ledger, f"pl-{name}-"):
        if commit and not row["commit"].startswith(commit):
            raise ValueError(f"--pool {spec}: ledger row {row['id']} was played on {row['commit']}")
        elo = int(row["id"].removeprefix(f"pl-{name}-"))
        pentanomial = re.search(r"pentanomial \[([0-9, ]+)\]", row["notes"])
        tally = Tally(int(row["wins"]), int(row["losses"]), int(row["draws"]),
                      [int(n) for n in pentanomial.group(1).split(",")] if pentanomial else [0] * 5)
        found.append(Measurement(elo, tally, number_with_nodes(level_for_elo(elo, curve_of(row["commit"]))),
                                 repeats(row["commit"]), row["id"]))
    if not found:
        raise ValueError(f"--pool {spec}: no {runs}/{name}-ELO.pgn and no ledger rows pl-{name}-ELO in {ledger}")
    return found


def ledger_rows(ledger: Path, prefix: str) -> list[dict[str, str]]:
    """The rows of the experiments ledger whose id is `prefix` and a number."""
    with ledger.open(encoding="utf-8", newline="") as file:
        return [row for row in csv.DictReader(file)
                if row["id"].startswith(prefix) and row["id"].removeprefix(prefix).isdigit()]


def fitted_curve(measurements: Sequence[Measurement], top: int | None = None,
                 more_anchors: Sequence[int] = ()) -> list[StrengthLevel]:
    """The anchors again, and `more_anchors` (levels between anchors that missed: straight lines
    between anchors cannot move them), each given the settings of the level that performed at its
    Elo; the top anchor (full strength) at `top` when given (where full strength played), anchors at
    or above it left out."""
    measured = monotone([(m.position, m.performance, m.tally.games)            # the top (full strength) too
                         for m in measurements if m.tally.games])
    top = CURVE[-1].elo if top is None else top
    anchors = []
    for elo in sorted({anchor.elo for anchor in CURVE[:-1]} | set(more_anchors)):
        if elo >= top:
            continue
        found = settings_at(round(number_for(elo, measured)))
        anchors.append(dataclasses.replace(found, elo=elo, temperature=round(found.temperature, 1),
                                           margin=round(found.margin, 1)))
    return anchors + [dataclasses.replace(CURVE[-1], elo=top)]


def curve_source(curve: Sequence[StrengthLevel]) -> str:
    """The CURVE assignment of uci_engine/strength.py for `curve`."""
    return "CURVE: tuple[StrengthLevel, ...] = (\n" + "".join(
        f"    StrengthLevel({a.elo}, nodes={a.nodes:_}, lines={a.lines}, temperature={a.temperature}, "
        f"margin={a.margin}),\n" for a in curve) + ")\n"


def write_curve(path: Path, curve: Sequence[StrengthLevel]) -> None:
    """Put `curve` in place of the CURVE of the strength.py at `path`."""
    source = path.read_text(encoding="utf-8")
    written, count = re.subn(r"^CURVE: tuple\[StrengthLevel, \.\.\.\] = \(\n.*?^\)\n", curve_source(curve),
                             source, count=1, flags=re.DOTALL | re.MULTILINE)
    if count != 1:
        raise ValueError(f"no CURVE block in {path}")
    path.write_text(written, encoding="utf-8")


def ledger_row(measurement: Measurement, args: argparse.Namespace, folder: Path) -> list[str]:
    """A level's row of the experiments ledger (docs/experiments.csv's columns)."""
    t = measurement.tally
    elo, low, high = t.elo_interval()
    commit = git("-C", str(folder), "rev-parse", "--short=7", "HEAD")
    if getattr(args, "round", False):
        command = (f"python -m tools.calibrate_levels round {args.name} --games {args.games} --tc {args.tc} "
                   f"--srand {args.srand}" + "".join(f" --pool {spec}" for spec in getattr(args, "pool", [])))
        if sorted(args.levels) != sorted([*ROUND_LEVELS, FULL_STRENGTH_ELO]):
            command += " --levels " + " ".join(map(str, args.levels))       # a round of some levels
    else:
        command = (f"python -m tools.calibrate_levels {measurement.elo} --commit {commit} --games {args.games} "
                   f"--tc {args.tc} --name {args.name} --srand {args.srand}")
    return [f"{args.ledger}-{measurement.elo}", date.today().isoformat(),
            f"UCI_Elo {measurement.elo} calibration (the curve of {commit}, {BUILTIN_NET})", commit,
            f"Stockfish 15.1 at UCI_Elo {measurement.elo}", args.tc, str(t.games), str(t.wins), str(t.losses),
            str(t.draws), shown(elo).lstrip("+"), shown(low).lstrip("+"), shown(high).lstrip("+"), "",
            "measurement", command, f"plays at about {measurement.performance:.0f}; pentanomial {t.pentanomial}; "
            f"games in runs/{args.name}-{measurement.elo}.pgn"]


def add_match_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of the games, shared by a round and the older form."""
    parser.add_argument("--games", type=int, default=60, help="games a level (even; default 60)")
    parser.add_argument("--tc", default="10+0.1", help="time control (default 10+0.1)")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--srand", type=int, default=4700, help="seed; a level adds its Elo")
    parser.add_argument("--stockfish", default=STOCKFISH, help="the opponent's command (a UCI engine with "
                        "UCI_LimitStrength and UCI_Elo; default Stockfish 15.1)")
    parser.add_argument("--openings", default=str(OPENINGS))
    parser.add_argument("--runs", type=Path, default=REPO / "runs", help="where the games go (default runs/)")


def checked(parser: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.Namespace:
    if args.games < 2 or args.games % 2:
        parser.error(f"--games must be even and at least 2, not {args.games}")
    if not Path(shlex.split(args.stockfish)[0]).exists():
        parser.error(f"--stockfish {args.stockfish}: no such file")
    return args


def parse_arguments(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m tools.calibrate_levels", description=__doc__.split("\n\n")[0])
    parser.add_argument("levels", nargs="*", type=int, default=[*ROUND_LEVELS, FULL_STRENGTH_ELO],
                        help="UCI_Elo values to play (default: the issue's six and the top)")
    parser.add_argument("--commit", default=WORKTREE, help="the revision to calibrate (default: this checkout)")
    parser.add_argument("--name", default="levels", help="games go to runs/NAME-ELO.pgn")
    add_match_arguments(parser)
    parser.add_argument("--fit", action="store_true", help="propose a curve from the games")
    parser.add_argument("--pool", action="append", default=[], metavar="NAME:COMMIT",
                        help="also fit with an earlier round's games, runs/NAME-ELO.pgn played with COMMIT's "
                             "curve (same net only; repeatable)")
    parser.add_argument("--ledger", metavar="ID_PREFIX",
                        help="also print each level as a row of docs/experiments.csv, id ID_PREFIX-ELO")
    return checked(parser, parser.parse_args(argv))


def parse_round_arguments(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m tools.calibrate_levels round",
                                     description="One calibration round of this checkout: games, ledger, curve, "
                                                 "record.")
    parser.add_argument("name", help="the round's name: games in runs/NAME-ELO.pgn, ledger rows pl-NAME-ELO")
    parser.add_argument("--levels", nargs="+", type=int, default=[*ROUND_LEVELS, FULL_STRENGTH_ELO],
                        help="UCI_Elo values to play (default: the issue's six and the top)")
    add_match_arguments(parser)
    parser.add_argument("--pool", action="append", default=[], metavar="NAME[:COMMIT]",
                        help="an earlier round's games (its PGNs in --runs, or its ledger rows; same net only; "
                             "repeatable): in the verdict where its commit signed this record, else in a refit only")
    parser.add_argument("--dry-run", action="store_true", help="print the runner commands; play and write nothing")
    parser.add_argument("--no-build", action="store_true",
                        help="play this checkout as it is built, without `setup.py build_ext --inplace` first")
    parser.add_argument("--ledger-file", type=Path, default=LEDGER)
    parser.add_argument("--strength-file", type=Path, default=STRENGTH_FILE)
    parser.add_argument("--record", type=Path, default=levels_record.RECORD)
    args = checked(parser, parser.parse_args(argv))
    args.round, args.commit, args.ledger = True, WORKTREE, f"pl-{args.name}"
    return args


def parse_resign_arguments(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m tools.calibrate_levels resign",
                                     description="Re-sign the levels' record for this engine, with a note that "
                                                 "says why.")
    parser.add_argument("--note", required=True, help="why the levels did not move (or the round that measured them)")
    parser.add_argument("--record", type=Path, default=levels_record.RECORD)
    return parser.parse_args(argv)


def play_levels(folder: Path, args: argparse.Namespace) -> list[Measurement]:
    """Each level's games (played, or read where its file holds them); RuntimeError when the runner fails."""
    measurements = []
    args.runs.mkdir(parents=True, exist_ok=True)      # a clean clone has no runs/ (git keeps it out)
    for elo in args.levels:
        pgn = args.runs / f"{args.name}-{elo}.pgn"
        played = tally_of(pgn).games if pgn.exists() else 0
        if played < args.games:
            # A stopped run goes on with the games it lacks, from other openings (the seed moves on).
            status = subprocess.run(runner_command(folder, elo, args, pgn, played), cwd=REPO).returncode
            if status != 0:
                raise RuntimeError(f"the runner stopped with status {status} at UCI_Elo {elo}")
        measurements.append(Measurement(elo, tally_of(pgn)))
        print(measurements[-1].row(), flush=True)
    return measurements


def print_table(measurements: Sequence[Measurement]) -> None:
    print("| `UCI_Elo` | games | Kestrel W-L-D | score | Elo against Stockfish (95%) | plays at about |")
    print("| --- | --- | --- | --- | --- | --- |")
    for measurement in measurements:
        print(measurement.row())


def with_repeats(measurements: Sequence[Measurement], pooled: Sequence[Measurement]) -> list[Measurement]:
    """Each level of this round with the games of the pooled rounds that played it as it plays now
    (the same signed record): one measurement of the level over all of them."""
    together = []
    for m in measurements:
        parts = [m, *(p for p in pooled if p.repeats and p.elo == m.elo)]
        pairs = [sum(counts) for counts in zip(*(p.tally.pentanomial for p in parts), strict=True)]
        tally = Tally(sum(p.tally.wins for p in parts), sum(p.tally.losses for p in parts),
                      sum(p.tally.draws for p in parts), pairs)
        together.append(Measurement(m.elo, tally, m.number, True, " + ".join(p.ledger for p in parts)))
    return together


def pentanomial_of(tally: Tally) -> list[int] | None:
    """The pair counts, where every pair's is known (a ledger row may have lost them)."""
    return tally.pentanomial if 2 * sum(tally.pentanomial) == tally.games else None


def misses(measurements: Sequence[Measurement]) -> list[Measurement]:
    """The levels out of their band; the top is full strength, and misses when it played away from
    the top of the range."""
    return [m for m in measurements if abs(m.performance - m.elo) > BAND]


def signature_afresh(folder: Path, levels: tuple[int, ...]) -> levels_record.LevelsSignature:
    """The levels' signature as the engine in `folder` plays them, in a fresh process (this one
    imported the core before the round's build)."""
    code = ("import json, sys; from tools import levels_record; "
            "print(json.dumps(levels_record.levels_signature(levels=tuple(map(int, sys.argv[1:]))).as_json()))")
    found = subprocess.run([sys.executable, "-c", code, *map(str, levels)], cwd=folder, capture_output=True,
                           text=True, check=True)
    return levels_record.LevelsSignature.from_json(json.loads(found.stdout))


def carried_levels(record: levels_record.Record, played: Sequence[int], folder: Path) -> list[Measurement]:
    """The issue's levels a round does not play that play as the record's signed engine did: the
    same net, the same settings on the curve, the same moves in the same nodes in the signature.
    Their recorded games still measure them, so a round of only the levels a change moved (say
    2300 and the top, for a search technique the levels up to 2100 do without) keeps them in its
    verdict and in the record.  A level that moved and was not played is not carried: unmeasured.
    Nor is any level of a record whose anchors are not all measured: after a refit its games were
    played on the curve before, not on the one it is signed for."""
    signed = record.get("signed", {})
    skipped = tuple(elo for elo in levels_record.SIGNED_LEVELS if elo not in played)
    entries = {entry["elo"]: entry for entry in record.get("levels", [])}
    anchors = record.get("anchors", [])
    if (not skipped or signed.get("net_sha256") != levels_record.net_sha256()
            or not anchors or not all(anchor.get("measured") for anchor in anchors)):
        return []
    curve_then = [StrengthLevel(**anchor) for anchor in signed["settings"]["curve"]]
    then = levels_record.LevelsSignature.from_json(signed["signature"])
    now = signature_afresh(folder, skipped)
    carried = []
    for elo in skipped:
        if elo in entries and level_for_elo(elo, curve_then) == level_for_elo(elo) and now.plays_alike(then, elo):
            entry = entries[elo]
            tally = Tally(entry["wins"], entry["losses"], entry["draws"], entry["pentanomial"] or [0] * 5)
            carried.append(Measurement(elo, tally, repeats=True, ledger=entry["ledger"]))
    return carried


def not_held(pooled: Sequence[Measurement], carried: Sequence[Measurement]) -> list[Measurement]:
    """The pooled measurements whose games no carried level holds already.  A carried level's
    record names the ledger rows it was measured over (``pl-A-1350 + pl-B-1350``); a round pooled
    into the same refit may be one of them, and a refit counts each game once."""
    held = {row for m in carried for row in m.ledger.split(" + ")}
    return [m for m in pooled if m.ledger not in held]


def run_round(args: argparse.Namespace) -> int:
    """One calibration round (the module's docstring says what it writes)."""
    if args.dry_run:
        for elo in args.levels:
            print(shlex.join(runner_command(REPO, elo, args, args.runs / f"{args.name}-{elo}.pgn")))
        print(f"then: ledger rows pl-{args.name}-ELO appended to {args.ledger_file}; the curve in "
              f"{args.strength_file} kept (every level within +-{BAND}) or refitted; {args.record} re-signed")
        return 0
    record = levels_record.read_record(args.record)
    pooled_rounds = {spec.partition(":")[0]: pooled_round(spec, args.runs, args.ledger_file, record.get("signed"))
                     for spec in args.pool}
    pooled = [m for levels in pooled_rounds.values() for m in levels]
    folder = checkout(WORKTREE, build=not args.no_build)
    carried = carried_levels(record, args.levels, folder)
    if carried:
        print(f"not played, and playing as when they were measured: {', '.join(str(m.elo) for m in carried)} "
              "(their recorded games count)")
    measurements = [dataclasses.replace(m, ledger=f"pl-{args.name}-{m.elo}") for m in play_levels(folder, args)]
    print_table(measurements)
    repeated = [name for name, levels in pooled_rounds.items() if any(m.repeats for m in levels)]
    rounds = [args.name, *repeated]
    if repeated:
        # Earlier rounds of these very levels: the verdict is over all their games.
        measurements_played, measurements = measurements, with_repeats(measurements, pooled)
        print(f"\nthe same levels (the same signed record) over rounds {', '.join(rounds)}:")
        print_table(measurements)
    else:
        measurements_played = measurements
    with args.ledger_file.open("a", encoding="utf-8", newline="") as ledger:
        csv.writer(ledger, lineterminator="\n").writerows(ledger_row(m, args, folder) for m in measurements_played)
    commit = git("rev-parse", "--short=7", "HEAD")
    measured_in = f"rounds {' + '.join(rounds)} (the same levels)" if repeated else f"round {args.name}"
    if carried:
        earlier = ", ".join(str(m.elo) for m in carried)
        measured_in += f" and, for {earlier} (not played; they play as they did), their recorded games"
        rounds.append(f"the recorded games of {earlier}")
        measurements = sorted([*measurements, *carried], key=lambda m: m.elo)
    record["levels"] = [{"elo": m.elo, "games": m.tally.games, "wins": m.tally.wins, "losses": m.tally.losses,
                         "draws": m.tally.draws, "pentanomial": pentanomial_of(m.tally),
                         "plays_at": round(m.performance), "ledger": m.ledger} for m in measurements]
    missed = misses(measurements)
    played_top = [m for m in measurements if m.elo == FULL_STRENGTH_ELO]
    # Levels neither played nor carried moved since their games (or, the top, cannot be shown not to).
    measured_levels = {m.elo for m in measurements}
    unmeasured = [elo for elo in (*ROUND_LEVELS, FULL_STRENGTH_ELO) if elo not in measured_levels]
    # Only full strength missed, over enough games, and every level below it sits at or below the
    # last anchor under the top: moving the top to where full strength played changes none of their
    # settings, so their games still measure them, and the range ends where full strength was measured.
    top_alone = (bool(played_top) and not unmeasured and [m.elo for m in missed] == [FULL_STRENGTH_ELO]
                 and all(m.elo <= CURVE[-2].elo for m in measurements if m.elo < FULL_STRENGTH_ELO)
                 and played_top[0].performance > CURVE[-2].elo + BAND
                 and min(m.tally.games for m in measurements) >= CALIBRATION_GAMES)
    if top_alone:
        played = played_top[0].performance
        curve = [*CURVE[:-1], dataclasses.replace(CURVE[-1], elo=int(round(played, -1)))]
        write_curve(args.strength_file, curve)
        record["anchors"] = [{"elo": a.elo, "measured": True, "with": f"{measured_in}, {BUILTIN_NET} at {commit}"
                              + (f"; full strength played {played:.0f}, so the range ends here" if a is curve[-1]
                                 else "")} for a in curve]
        record["measured_with"] = {"net": BUILTIN_NET, "commit": commit, "round": " + ".join(rounds)}
        note = (f"{measured_in} ({BUILTIN_NET} at {commit}): every level below the top within +-{BAND}; full "
                f"strength played {played:.0f}, so the top moved from {FULL_STRENGTH_ELO} to {curve[-1].elo}")
    elif missed:
        # The top moves only when full strength played away from it: the range ends where it plays.
        top = played_top[0].performance if played_top else FULL_STRENGTH_ELO
        curve = fitted_curve([*measurements_played, *carried, *not_held(pooled, carried)],  # each game once
                             int(round(top, -1)) if abs(top - FULL_STRENGTH_ELO) > BAND else None,
                             [m.elo for m in missed if m.elo < FULL_STRENGTH_ELO])
        fitted_from = (f"rounds {' and '.join([args.name, *pooled_rounds])}"
                       if args.pool else f"round {args.name}")
        if carried:
            fitted_from += f" with the recorded games of {', '.join(str(m.elo) for m in carried)}"
        write_curve(args.strength_file, curve)
        record["anchors"] = [{"elo": a.elo, "measured": False, "with": f"fitted from {fitted_from} "
                              f"({BUILTIN_NET} at {commit}), not measured: play the next round"} for a in curve]
        # The curve that was measured is gone: say so, rather than keep naming the round that measured it.
        record["measured_with"] = {"net": BUILTIN_NET, "commit": commit,
                                   "round": f"none yet: the curve was refitted from {fitted_from}"}
        note = (f"{measured_in} ({BUILTIN_NET} at {commit}): "
                f"{', '.join(f'{m.elo} played {m.performance:.0f}' for m in missed)}, out of +-{BAND}; "
                f"the curve refitted from {fitted_from}")
    elif min(m.tally.games for m in measurements) < CALIBRATION_GAMES:
        record["anchors"] = [{"elo": a.elo, "measured": False, "with": f"{measured_in} ({BUILTIN_NET} at "
                              f"{commit}) played fewer than {CALIBRATION_GAMES} games a level"} for a in CURVE]
        note = (f"{measured_in} ({BUILTIN_NET} at {commit}): within +-{BAND}, but fewer than "
                f"{CALIBRATION_GAMES} games a level measure nothing")
    elif unmeasured:
        shown_levels = ", ".join(map(str, unmeasured))
        record["anchors"] = [{"elo": a.elo, "measured": False, "with": f"{measured_in} ({BUILTIN_NET} at "
                              f"{commit}) did not play {shown_levels}, which moved since their games"} for a in CURVE]
        note = (f"{measured_in} ({BUILTIN_NET} at {commit}): within +-{BAND}, but {shown_levels} moved "
                f"since their games and were not played: play them")
    else:
        record["anchors"] = [{"elo": a.elo, "measured": True, "with": f"{measured_in}, {BUILTIN_NET} at {commit}"}
                             for a in CURVE]
        record["measured_with"] = {"net": BUILTIN_NET, "commit": commit, "round": " + ".join(rounds)}
        note = f"{measured_in} ({BUILTIN_NET} at {commit}): every level within +-{BAND}"
    levels_record.write_record(record, args.record)
    resign_afresh(note, args.record)
    print(note)
    return 0


def resign_afresh(note: str, record: Path) -> None:
    """Sign `record` in a fresh process, so that a refitted curve is the one signed."""
    subprocess.run([sys.executable, "-m", "tools.calibrate_levels", "resign", "--note", note, "--record", str(record)],
                   cwd=REPO, check=True)


def resign(args: argparse.Namespace) -> int:
    """Sign the record for this engine, saying first what differs from what it was signed for."""
    record = levels_record.read_record(args.record)
    signature = levels_record.levels_signature()
    for difference in levels_record.differences(record, signature):
        print(f"differs: {difference}")
    try:
        levels_record.write_record(levels_record.signed(record, args.note, signature), args.record)
    except ValueError as error:
        print(f"calibrate_levels: {error}", file=sys.stderr)
        return 2
    print(f"signed {args.record}: levels signature {signature.digest[:16]}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["resign"]:
        return resign(parse_resign_arguments(argv[1:]))
    try:
        if argv[:1] == ["round"]:
            return run_round(parse_round_arguments(argv[1:]))
        args = parse_arguments(argv)
        folder = checkout(args.commit)
        measurements = play_levels(folder, args)
    except RuntimeError as error:
        print(f"calibrate_levels: {error}", file=sys.stderr)
        return 1
    print_table(measurements)
    if args.ledger:
        writer = csv.writer(sys.stdout, lineterminator="\n")
        for measurement in measurements:
            writer.writerow(ledger_row(measurement, args, folder))
    if args.fit:
        try:
            pooled = [m for spec in args.pool for m in pooled_round(spec, args.runs)]
        except (ValueError, subprocess.CalledProcessError) as error:
            print(f"calibrate_levels: {error}", file=sys.stderr)
            return 2
        for m in pooled:
            print(f"pooled: UCI_Elo {m.elo} of an earlier curve, at {m.position:.0f} on today's: "
                  f"{m.tally.games} games, plays at about {m.performance:.0f}")
        print(curve_source(fitted_curve(measurements + pooled)), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
