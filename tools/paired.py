"""Pooled and paired statistics of match PGNs written by `python -m tournaments`.

Games of the same round share an opening (colours swapped), and two runs with the same `-srand`
play the same openings round by round, so a candidate's run can be compared with a base's
opening by opening: the difference of the two pair scores has far less variance than either run.
The statistics are tournaments/stats.py's; this tool only reads the PGNs.

    python -m tools.paired stats ENGINE A.pgn [B.pgn ...] [--drop TERMINATION ...]
        W-L-D, score, LOS and pentanomial of ENGINE over the runs, with Elo and its 95% interval
        from the pair scores; --drop leaves out the games of that PGN Termination (for example
        --drop "time forfeit": a result with the opponents' time losses left out; their pairs
        then count in W-L-D, not in the pentanomial)
    python -m tools.paired paired ENGINE CAND1.pgn[,CAND2.pgn] BASE1.pgn[,BASE2.pgn]
        the candidate's pair scores minus the base's, opening by opening (CANDi with BASEi:
        the same seed), in Elo at the base's score with a 95% interval
    python -m tools.paired times ENGINE A.pgn [B.pgn ...]
        ENGINE's thinking time per game and per move (its first 30 moves out of book, and all),
        from the "{score/depth seconds}" comments the runner writes after each move
"""

from __future__ import annotations

import re
import sys
from collections.abc import Collection, Iterator, Sequence

import chess
import chess.pgn

from tournaments.snapshot import fmt_elo
from tournaments.stats import paired_difference, points, tally_results

SECONDS = re.compile(r"([0-9.]+)s\b")     # the runner's "{ +0.07/7 0.642s }" after each move
EARLY_MOVES = 30


def plays_white(headers: chess.pgn.Headers, engine: str) -> bool | None:
    """Whether ENGINE had White in the game of `headers`: None when it did not play there."""
    if engine not in (headers.get("White"), headers.get("Black")):
        return None
    return headers.get("White") == engine


def games_of(path: str, dropped: Collection[str] = ()) -> Iterator[tuple[str, str, str, str]]:
    """(round, White, Black, result) of each game of `path` whose Termination is not one of `dropped`;
    the round is the pair (`Round` "3.2" -> "3")."""
    with open(path) as pgn:
        while (headers := chess.pgn.read_headers(pgn)) is not None:
            if headers.get("Termination") in dropped:
                continue
            yield (headers.get("Round", "?").split(".")[0], headers.get("White", "?"), headers.get("Black", "?"),
                   headers.get("Result", "*"))


def pair_scores(path: str, engine: str) -> dict[str, float]:
    """ENGINE's points per game in each round of `path` whose two games both finished."""
    rounds: dict[str, list[float]] = {}
    for key, white, black, result in games_of(path):
        if engine not in (white, black) or (scored := points(result, white == engine)) is None:
            continue
        rounds.setdefault(key, []).append(scored)
    return {key: sum(scored) / 2 for key, scored in rounds.items() if len(scored) == 2}


def stats(engine: str, paths: Sequence[str], dropped: Collection[str] = ()) -> str:
    """ENGINE's pooled results over the runs of `paths`, each run's rounds its own pairs, without the
    games whose Termination is one of `dropped`."""
    pair_ids: dict[tuple[int, str], int] = {}
    games = [(pair_ids.setdefault((number, key), len(pair_ids)), white, black, result)
             for number, path in enumerate(paths) for key, white, black, result in games_of(path, dropped)]
    tally = tally_results(games, engine)
    if tally.games == 0:
        return f"{engine}: no finished games"
    elo, low, high = tally.penta_elo_interval()
    return (f"{engine}: {tally.games} games, {tally.wins}-{tally.losses}-{tally.draws}, {100 * tally.score:.1f}%, "
            f"LOS {100 * tally.los():.1f}%, pentanomial {tally.pentanomial}: "
            f"Elo {fmt_elo(elo)} ({fmt_elo(low)} .. {fmt_elo(high)})")


def paired(engine: str, candidates: Sequence[str], bases: Sequence[str]) -> str:
    """The candidate runs against the base runs (the i-th of each played with the same seed)."""
    ours: list[float] = []
    theirs: list[float] = []
    for candidate_path, base_path in zip(candidates, bases, strict=True):
        candidate, base = pair_scores(candidate_path, engine), pair_scores(base_path, engine)
        for key in sorted(candidate.keys() & base.keys()):
            ours.append(candidate[key])
            theirs.append(base[key])
    d = paired_difference(ours, theirs)
    if d.pairs == 0:
        return f"{engine}: no opening finished in both runs"
    return (f"{d.pairs} openings: base {100 * d.base_score:.1f}%, candidate {100 * d.candidate_score:.1f}%; "
            f"difference {fmt_elo(d.elo)} ({fmt_elo(d.low)} .. {fmt_elo(d.high)}) Elo")


def times(engine: str, paths: Sequence[str]) -> str:
    """ENGINE's mean thinking time per game, per move early on and per move over the games."""
    per_game: list[float] = []
    early: list[float] = []
    every: list[float] = []
    for path in paths:
        with open(path) as pgn:
            while (game := chess.pgn.read_game(pgn)) is not None:
                engine_is_white = plays_white(game.headers, engine)
                if engine_is_white is None:
                    continue
                seconds = [float(found.group(1)) for node in game.mainline()
                           if (node.turn() == chess.BLACK) == engine_is_white   # after ENGINE's move
                           and (found := SECONDS.search(node.comment))]
                per_game.append(sum(seconds))
                early.extend(seconds[:EARLY_MOVES])
                every.extend(seconds)
    if not every:
        return f"{engine}: no timed moves"
    return (f"{engine}: {len(per_game)} games, {sum(per_game) / len(per_game):.1f} s per game; per move "
            f"{sum(early) / len(early):.3f} s over its first {EARLY_MOVES} out of book, "
            f"{sum(every) / len(every):.3f} s over all {len(every)}")


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) >= 3 and args[0] == "stats":
        paths, dropped = [], []
        rest = iter(args[2:])
        for arg in rest:
            if arg == "--drop":
                if (termination := next(rest, None)) is None:
                    print("stats: --drop needs a PGN Termination, for example --drop 'time forfeit'", file=sys.stderr)
                    return 2
                dropped.append(termination)
            else:
                paths.append(arg)
        if not paths:
            print("stats: no PGN given", file=sys.stderr)
            return 2
        print(stats(args[1], paths, dropped))
    elif len(args) >= 3 and args[0] == "times":
        print(times(args[1], args[2:]))
    elif len(args) == 4 and args[0] == "paired":
        candidates, bases = args[2].split(","), args[3].split(",")
        if len(candidates) != len(bases):
            print("paired: as many candidate runs as base runs, the i-th of each with the same seed", file=sys.stderr)
            return 2
        print(paired(args[1], candidates, bases))
    else:
        print(__doc__, file=sys.stderr)
        return 0 if args[:1] in (["-h"], ["--help"]) else 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
