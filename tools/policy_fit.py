"""Fit MCTS's prior weights to the moves of Kestrel's alpha-beta search.

    python -m tools.policy_fit GAMES.pgn [GAMES.pgn ...] [--positions 4000] [--depth 8]

The priors (search/mcts_priors.pxd) are a softmax over a weighted sum of move features.  This
tool takes positions from the games, half of them as played and half one random legal move
later (the tree meets many positions after a bad move, where the best reply is often to take
what was left hanging), labels each with the best move of a `--depth` alpha-beta search, and
finds the weights under which the softmax gives that move the highest likelihood (softmax
regression, Newton's method, a small L2 penalty).  The table's move is that of a
`--table-depth` search, as a searched leaf would leave it; the history feature is 0 outside a
search and keeps its hand weight.

It prints, for the held-out fifth of the positions, the mean log-likelihood of the labelled
move and how often it gets the highest prior, for the hand-set and the fitted weights at
temperatures 1 and 2, and the fitted weights as a table for search/mcts_priors.pyx.  Whether
they play better is for games to say (docs/mcts.md, "Priors").
"""

from __future__ import annotations

import math
import random
import sys
from collections.abc import Sequence

import chess.pgn

from search.alphabeta_searcher import AlphaBetaSearcher
from search.board.position import Position
from search.limits import MAX_DEPTH, SearchLimits
from search.mcts_searcher import PRIOR_FEATURES, MCTSSearcher
from tools.arguments import ToolParser, fail, int_range, parse, positive_int, readable_file

# One training example: the feature rows of every legal move, and the index of the labelled one.
Example = tuple[list[list[float]], int]

# Features whose weights are fitted; the history is 0 outside a search.
FITTED = [i for i, name in enumerate(PRIOR_FEATURES) if name != "history"]
L2_PENALTY = 1e-3          # per example, on every fitted weight
NEWTON_STEPS = 12


# A position as the FEN before a move and the move (UCI): the recapture feature needs the last move.
Sample = tuple[str, str]


def sample_positions(paths: Sequence[str], count: int, rng: random.Random) -> list[Sample]:
    """Up to `count` distinct positions from the games: half as played, half one random move on."""
    played: list[Sample] = []
    for path in paths:
        with open(path, encoding="utf-8", errors="replace") as handle:
            while (game := chess.pgn.read_game(handle)) is not None:
                board = game.board()
                for move in game.mainline_moves():
                    before = board.fen()
                    board.push(move)
                    if board.is_game_over() or board.ply() < 8:
                        continue
                    played.append((before, move.uci()))
    rng.shuffle(played)
    chosen: dict[str, Sample] = {}
    for index, (before, last) in enumerate(played):
        if len(chosen) >= count:
            break
        if index % 2:
            board = chess.Board(before)
            board.push_uci(last)
            before = board.fen()
            last = rng.choice(list(board.legal_moves)).uci()
        after = chess.Board(before)
        after.push_uci(last)
        if not after.is_game_over():
            chosen.setdefault(after.fen(), (before, last))
    return list(chosen.values())


def position_of(sample: Sample) -> Position:
    before, move = sample
    position = Position(before)
    position.push(move)
    return position


def best_move(searcher: AlphaBetaSearcher, sample: Sample, depth: int) -> str:
    """The move of a fresh `depth`-ply search (the table cleared: no position leaks into the next)."""
    searcher.clear()
    return searcher.search(position_of(sample), SearchLimits(depth=depth)).best_move


def build_examples(samples: Sequence[Sample], depth: int, table_depth: int) -> list[Example]:
    label_search = AlphaBetaSearcher(hash_mb=16)
    table_search = AlphaBetaSearcher(hash_mb=16)
    features = MCTSSearcher(hash_mb=1)
    examples: list[Example] = []
    for number, sample in enumerate(samples, 1):
        label = best_move(label_search, sample, depth)
        table_move = best_move(table_search, sample, table_depth) if table_depth > 0 else None
        rows = features.prior_features(position_of(sample), table_move)
        moves = list(rows)
        if label not in rows or len(moves) < 2:
            continue
        examples.append(([rows[m] for m in moves], moves.index(label)))
        if number % 500 == 0:
            print(f"  {number} positions searched", file=sys.stderr)
    return examples


def logits(rows: list[list[float]], weights: Sequence[float]) -> list[float]:
    return [sum(w * f for w, f in zip(weights, row, strict=True)) for row in rows]


def softmax(values: list[float]) -> list[float]:
    top = max(values)
    exps = [math.exp(v - top) for v in values]
    total = sum(exps)
    return [e / total for e in exps]


def score(examples: Sequence[Example], weights: Sequence[float], temperature: float) -> tuple[float, float]:
    """(mean log-likelihood of the labelled move, share where it has the highest prior)."""
    loglik = 0.0
    hits = 0
    for rows, label in examples:
        probs = softmax([v / temperature for v in logits(rows, weights)])
        loglik += math.log(max(probs[label], 1e-300))
        hits += probs[label] >= max(probs)
    return loglik / len(examples), hits / len(examples)


def solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (the systems here are 12 by 12)."""
    n = len(vector)
    a = [row[:] + [vector[i]] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        for r in range(n):
            if r != col and a[col][col] != 0.0:
                factor = a[r][col] / a[col][col]
                for c in range(col, n + 1):
                    a[r][c] -= factor * a[col][c]
    return [a[i][n] / a[i][i] if a[i][i] else 0.0 for i in range(n)]


def fit(examples: Sequence[Example], start: Sequence[float]) -> list[float]:
    """Newton's method on the penalised negative log-likelihood, over the FITTED weights."""
    weights = list(start)
    k = len(FITTED)
    for _ in range(NEWTON_STEPS):
        gradient = [L2_PENALTY * len(examples) * weights[j] for j in FITTED]
        hessian = [[L2_PENALTY * len(examples) if a == b else 0.0 for b in range(k)] for a in range(k)]
        for rows, label in examples:
            probs = softmax(logits(rows, weights))
            sub = [[row[j] for j in FITTED] for row in rows]
            mean = [sum(p * r[a] for p, r in zip(probs, sub, strict=True)) for a in range(k)]
            for a in range(k):
                gradient[a] += mean[a] - sub[label][a]
            for p, r in zip(probs, sub, strict=True):
                if p < 1e-12:
                    continue
                for a in range(k):
                    if r[a] == 0.0:
                        continue
                    pa = p * r[a]
                    for b in range(k):
                        hessian[a][b] += pa * r[b]
            for a in range(k):
                for b in range(k):
                    hessian[a][b] -= mean[a] * mean[b]
        step = solve(hessian, gradient)
        for a, j in enumerate(FITTED):
            weights[j] -= step[a]
        if max(abs(s) for s in step) < 1e-4:
            break
    return weights


def main(argv: Sequence[str] | None = None) -> int:
    parser = ToolParser(prog="python -m tools.policy_fit", description=__doc__.split("\n\n")[0])
    parser.add_argument("pgn", nargs="+", type=readable_file, help="games to take positions from")
    parser.add_argument("--positions", type=positive_int, default=4000)
    parser.add_argument("--depth", type=int_range(1, MAX_DEPTH), default=8,
                        help="plies of the search that labels the move")
    parser.add_argument("--table-depth", type=int_range(0, MAX_DEPTH), default=2,
                        help="plies of the search whose move is the table's (0: no table move)")
    parser.add_argument("--seed", type=int, default=1)
    args = parse(parser, argv)
    if args is None:
        return 2
    rng = random.Random(args.seed)
    try:
        samples = sample_positions([str(path) for path in args.pgn], args.positions, rng)
    except OSError as exc:
        return fail(parser.prog, f"{exc}; give PGN files")
    if len(samples) < 10:
        return fail(parser.prog, f"fewer than 10 positions in the games ({len(samples)}); give more games")
    print(f"{len(samples)} positions, labels from depth {args.depth}, table move from depth {args.table_depth}")
    examples = build_examples(samples, args.depth, args.table_depth)
    held_out = max(1, len(examples) // 5)
    test, train = examples[:held_out], examples[held_out:]
    hand = MCTSSearcher.prior_weights(False)
    fitted = fit(train, hand)
    print(f"{len(train)} training and {len(test)} held-out positions")
    print("weights            loglik(T=1)  top1(T=1)  loglik(T=2)  top1(T=2)")
    for name, weights in (("hand-set", hand), ("fitted", fitted)):
        l1, t1 = score(test, weights, 1.0)
        l2, t2 = score(test, weights, 2.0)
        print(f"{name:16} {l1:12.4f} {t1:10.3f} {l2:12.4f} {t2:10.3f}")
    print("FITTED_PRIOR_WEIGHTS[:] = [")
    for name, weight in zip(PRIOR_FEATURES, fitted, strict=True):
        print(f"    {weight:.3f},  # FEATURE_{name.upper()}")
    print("]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
