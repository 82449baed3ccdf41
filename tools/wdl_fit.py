"""Fit the WDL model (search/wdl.py) to games: `python -m tools.wdl_fit GAMES.pgn|GAMES.kgame ...`.

Every move with a score comment (`{ +0.35/12 0.1s }`, as the project's runner and
cutechess write them) gives one sample: the mover's score, the material on the board
and the game's result from the mover's view.  The data generator's game records
(`.kgame`, tools/game_records.py) give the same for every searched position, so the
model can be fitted to the net's own games by the million.  Mate scores and the opening
(first 8 moves) are left out.  The constants maximise the likelihood of the results (a small
Nelder-Mead search, no dependency); the fit's log-loss and a calibration table are
printed beside those of the constants in use.
"""

from __future__ import annotations

import math
import re
import sys
from collections import Counter
from collections.abc import Callable, Iterable

import chess.pgn

from search.board.position import Position
from search.wdl import A0, A1, B0, B1, material_of, wdl_probabilities
from tools.arguments import ToolParser, fail, int_range, parse, readable_file
from tools.game_records import GAME_SUFFIX, is_mate_score, replay, whole_games
from tools.nnue_data import RESULT_DRAW

SCORE = re.compile(r"^\s*([+-]?\d+(?:\.\d+)?)/\d+")
Sample = tuple[int, int, int]      # (cp rounded to 10, material, outcome +1/0/-1 for the mover)
# A finished game's PGN result as White's outcome: +1 won, 0 drawn, -1 lost.
WHITE_OUTCOME = {"1-0": 1, "0-1": -1, "1/2-1/2": 0}


def comment_score(comment: str) -> int | None:
    """The mover's score in centipawns from a move comment that begins `+1.23/12`, None without one."""
    match = SCORE.match(comment)
    return round(float(match.group(1)) * 100) if match else None


def samples_from_pgn(paths: Iterable[str], skip_moves: int = 8, player: str | None = None) -> Counter[Sample]:
    """Scored moves of every decided or drawn game, counted by (cp, material, outcome); with `player`,
    only the moves of the engine of that name (the White or Black tag)."""
    counts: Counter[Sample] = Counter()
    for path in paths:
        with open(path) as handle:
            while (game := chess.pgn.read_game(handle)) is not None:
                result = game.headers.get("Result")
                if result not in WHITE_OUTCOME:
                    continue
                white_outcome = WHITE_OUTCOME[result]
                board = game.board()
                scored = {colour: player is None or game.headers.get(tag) == player
                          for colour, tag in ((chess.WHITE, "White"), (chess.BLACK, "Black"))}
                for node in game.mainline():
                    mover_is_white = board.turn == chess.WHITE
                    material = material_of(Position(board.fen()))
                    cp = comment_score(node.comment or "")
                    if cp is not None and board.fullmove_number > skip_moves and scored[board.turn]:
                        if abs(cp) < 2000:
                            outcome = white_outcome if mover_is_white else -white_outcome
                            counts[(round(cp, -1), material, outcome)] += 1
                    board.push(node.move)
    return counts


def samples_from_game_records(paths: Iterable[str], skip_moves: int = 8,
                              max_games: int | None = None) -> Counter[Sample]:
    """Every searched position of the whole games in `.kgame` files (at most `max_games` of them,
    taken in turn from each file so that every shard is represented), counted like
    `samples_from_pgn`'s: the score is the side to move's, the outcome the game's from its view."""
    counts: Counter[Sample] = Counter()
    readers = [whole_games(path) for path in paths]
    games = 0
    while readers and (max_games is None or games < max_games):
        for reader in list(readers):
            game = next(reader, None)
            if game is None:
                readers.remove(reader)
                continue
            games += 1
            for position, ply, score, result, _ in replay(game):
                if ply >= 2 * skip_moves and not is_mate_score(score) and abs(score) < 2000:
                    counts[(round(score, -1), material_of(position), result - RESULT_DRAW)] += 1
            if max_games is not None and games >= max_games:
                break
    return counts


def log_loss(counts: Counter[Sample], params: tuple[float, float, float, float]) -> float:
    """Mean negative log-likelihood of the outcomes under the model with `params`."""
    total = 0.0
    n = 0
    for (cp, material, outcome), count in counts.items():
        probabilities = wdl_probabilities(cp, material, *params)
        p = probabilities[0 if outcome == 1 else (1 if outcome == 0 else 2)]
        total -= count * math.log(max(p, 1e-9))
        n += count
    return total / max(n, 1)


def nelder_mead(f: Callable[[list[float]], float], start: list[float], step: list[float],
                iterations: int = 400) -> list[float]:
    """Minimise `f` from `start` (the plain Nelder-Mead simplex method)."""
    simplex = [list(start)] + [[x + (step[i] if j == i else 0.0) for j, x in enumerate(start)]
                               for i in range(len(start))]
    values = [f(p) for p in simplex]
    for _ in range(iterations):
        order = sorted(range(len(simplex)), key=values.__getitem__)
        simplex = [simplex[i] for i in order]
        values = [values[i] for i in order]
        centroid = [sum(p[i] for p in simplex[:-1]) / (len(simplex) - 1) for i in range(len(start))]
        worst = simplex[-1]
        reflected = [c + (c - w) for c, w in zip(centroid, worst, strict=True)]
        fr = f(reflected)
        if fr < values[0]:
            expanded = [c + 2 * (c - w) for c, w in zip(centroid, worst, strict=True)]
            fe = f(expanded)
            simplex[-1], values[-1] = (expanded, fe) if fe < fr else (reflected, fr)
        elif fr < values[-2]:
            simplex[-1], values[-1] = reflected, fr
        else:
            contracted = [c + 0.5 * (w - c) for c, w in zip(centroid, worst, strict=True)]
            fc = f(contracted)
            if fc < values[-1]:
                simplex[-1], values[-1] = contracted, fc
            else:
                best = simplex[0]
                simplex = [best] + [[b + 0.5 * (x - b) for b, x in zip(best, p, strict=True)] for p in simplex[1:]]
                values = [values[0]] + [f(p) for p in simplex[1:]]
    return simplex[min(range(len(simplex)), key=values.__getitem__)]


def calibration_table(counts: Counter[Sample], params: tuple[float, float, float, float]) -> list[str]:
    """Observed and predicted win/draw/loss rates by score band."""
    bands = [(-2000, -300), (-300, -150), (-150, -50), (-50, 50), (50, 150), (150, 300), (300, 2000)]
    rows = ["score band      samples  observed W/D/L %     model W/D/L %"]
    for low, high in bands:
        seen = [0, 0, 0]
        predicted = [0.0, 0.0, 0.0]
        n = 0
        for (cp, material, outcome), count in counts.items():
            if low <= cp < high:
                seen[0 if outcome == 1 else (1 if outcome == 0 else 2)] += count
                for i, p in enumerate(wdl_probabilities(cp, material, *params)):
                    predicted[i] += p * count
                n += count
        if n:
            rows.append(f"[{low:5d},{high:5d})  {n:8d}  " + "/".join(f"{100 * s / n:4.1f}" for s in seen)
                        + "     " + "/".join(f"{100 * p / n:4.1f}" for p in predicted))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = ToolParser(prog="python -m tools.wdl_fit", description=__doc__.split("\n\n")[0])
    parser.add_argument("pgn", nargs="+", type=readable_file,
                        help="games with score comments (.pgn) or the data generator's game records (.kgame)")
    parser.add_argument("--player", help="fit only the moves of the engine named NAME (e.g. one evaluation's games)")
    parser.add_argument("--max-games", type=int_range(1), metavar="N",
                        help="read at most N games of the .kgame files (a few thousand fit the four constants)")
    args = parse(parser, argv)
    if args is None:
        return 2
    try:
        paths = [str(path) for path in args.pgn]
        records = [path for path in paths if path.endswith(GAME_SUFFIX)]
        counts = samples_from_pgn([path for path in paths if not path.endswith(GAME_SUFFIX)], player=args.player)
        counts += samples_from_game_records(records, max_games=args.max_games)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        return fail(parser.prog, f"{exc}; give PGN files or .kgame game records")
    n = sum(counts.values())
    if n < 100:
        return fail(parser.prog, f"only {n} scored moves; play more games")
    in_use = (A0, A1, B0, B1)

    def objective(p: list[float]) -> float:
        return log_loss(counts, (p[0], p[1], p[2], p[3]))

    fitted = nelder_mead(objective, list(in_use), [40.0, 40.0, 15.0, 15.0])
    best = (fitted[0], fitted[1], fitted[2], fitted[3])
    print(f"samples: {n} scored moves")
    print(f"constants in use: A0={A0:.1f} A1={A1:.1f} B0={B0:.1f} B1={B1:.1f}  log-loss {log_loss(counts, in_use):.4f}")
    print(f"fitted:           A0={best[0]:.1f} A1={best[1]:.1f} B0={best[2]:.1f} B1={best[3]:.1f}  "
          f"log-loss {log_loss(counts, best):.4f}")
    print("\n".join(calibration_table(counts, best)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
