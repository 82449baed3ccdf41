"""Pooled and paired statistics of match PGNs written by `python -m tournaments` (docs/mcts.md).

Games of the same round share an opening (colours swapped), and two runs with the same `-srand`
play the same openings round by round, so a candidate's run can be compared with a base's
opening by opening: the difference of the two pair scores has far less variance than either run.

    python -m tools.paired stats ENGINE A.pgn [B.pgn ...]
        W-L-D, score and pentanomial of ENGINE over the runs, with Elo and its 95% interval
    python -m tools.paired paired ENGINE CAND1.pgn[,CAND2.pgn] BASE1.pgn[,BASE2.pgn]
        the candidate's pair scores minus the base's, opening by opening (CANDi with BASEi:
        the same seed), in Elo at the base's score with a 95% interval
    python -m tools.paired times ENGINE A.pgn [B.pgn ...]
        ENGINE's thinking time per game and per move (its first 30 moves out of book, and all),
        from the "{score/depth seconds}" comments the runner writes after each move
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Iterator

import chess.pgn

POINTS = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}
SECONDS = re.compile(r"([0-9.]+)s\b")     # the runner's "{ +0.07/7 0.642s }" after each move
EARLY_MOVES = 30


def plays_white(headers: chess.pgn.Headers, engine: str) -> bool | None:
    """Whether ENGINE had White in the game of `headers`: None when it did not play there."""
    if engine not in (headers.get("White"), headers.get("Black")):
        return None
    return headers.get("White") == engine


def finished_games(path: str, engine: str) -> Iterator[tuple[str, float]]:
    """(round, ENGINE's points) of each finished game of `path` that ENGINE played."""
    with open(path) as pgn:
        while (headers := chess.pgn.read_headers(pgn)) is not None:
            result = headers.get("Result", "*")
            white = plays_white(headers, engine)
            if result not in POINTS or white is None:
                continue
            points = POINTS[result] if white else 1.0 - POINTS[result]
            yield headers.get("Round", "?").split(".")[0], points


def pair_scores(path: str, engine: str) -> dict[str, float]:
    """ENGINE's points in each round of `path` whose two games both finished."""
    rounds: dict[str, tuple[float, int]] = {}
    for key, points in finished_games(path, engine):
        total, games = rounds.get(key, (0.0, 0))
        rounds[key] = (total + points, games + 1)
    return {key: total for key, (total, games) in rounds.items() if games == 2}


def elo(score: float) -> float:
    """The logistic Elo difference of a score in (0, 1)."""
    score = min(max(score, 1e-6), 1.0 - 1e-6)
    return -400.0 * math.log10(1.0 / score - 1.0)


def stats(engine: str, paths: list[str]) -> str:
    wins = losses = draws = 0
    pentanomial = [0] * 5
    for path in paths:
        for _, points in finished_games(path, engine):
            wins += points == 1.0
            losses += points == 0.0
            draws += points == 0.5
        for total in pair_scores(path, engine).values():
            pentanomial[round(total * 2)] += 1
    pairs = sum(pentanomial)
    mean = sum(k / 4 * count for k, count in enumerate(pentanomial)) / pairs
    variance = sum(count * (k / 4 - mean) ** 2 for k, count in enumerate(pentanomial)) / pairs
    half = 1.96 * math.sqrt(variance / pairs)
    games = wins + losses + draws
    return (f"{engine}: {games} games, {wins}-{losses}-{draws}, {100 * (wins + draws / 2) / games:.1f}%, "
            f"pentanomial {pentanomial}: Elo {elo(mean):+.0f} ({elo(mean - half):+.0f} .. {elo(mean + half):+.0f})")


def paired(engine: str, candidates: list[str], bases: list[str]) -> str:
    differences: list[float] = []
    base_scores: list[float] = []
    for candidate_path, base_path in zip(candidates, bases, strict=True):
        ours, theirs = pair_scores(candidate_path, engine), pair_scores(base_path, engine)
        for key in ours.keys() & theirs.keys():
            differences.append((ours[key] - theirs[key]) / 2)
            base_scores.append(theirs[key] / 2)
    n = len(differences)
    mean = sum(differences) / n
    deviation = math.sqrt(sum((d - mean) ** 2 for d in differences) / (n - 1))
    base = sum(base_scores) / n
    half = 1.96 * deviation / math.sqrt(n)
    return (f"{n} openings: base {100 * base:.1f}%, candidate {100 * (base + mean):.1f}%; difference "
            f"{elo(base + mean) - elo(base):+.0f} ({elo(base + mean - half) - elo(base):+.0f} .. "
            f"{elo(base + mean + half) - elo(base):+.0f}) Elo")


def times(engine: str, paths: list[str]) -> str:
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


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "stats":
        print(stats(sys.argv[2], sys.argv[3:]))
    elif len(sys.argv) >= 4 and sys.argv[1] == "times":
        print(times(sys.argv[2], sys.argv[3:]))
    elif len(sys.argv) == 5 and sys.argv[1] == "paired":
        print(paired(sys.argv[2], sys.argv[3].split(","), sys.argv[4].split(",")))
    else:
        sys.exit(__doc__)
