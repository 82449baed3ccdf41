"""Stand-in NNUE training data: random legal positions labelled by the weighted evaluation.

``python -m tools.nnue_random_data --count 20000 --out random.kpos`` plays random legal moves from
the start position and keeps some of the quiet positions it passes (not in check, with legal moves),
each labelled with ``eval.api.evaluate`` (centipawns, side to move's view) and a result derived from
that score (a win above +300, a loss below -300, else a draw), packed as ``tools.nnue_data`` records.
It is test data for the trainer until positions from Kestrel's own games exist, not a training set
for a net worth playing.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

from eval.api import evaluate
from search.board.position import Position
from tools.nnue_data import RESULT_DRAW, RESULT_LOSS, RESULT_WIN, pack

# A decisive result for the stand-in label: roughly where the weighted evaluation's games are decided.
DECISIVE_CP = 300


def random_records(count: int, seed: int = 1, max_plies: int = 120, keep: float = 0.25) -> bytes:
    """`count` packed records from random games (each position kept with probability `keep`)."""
    rng = random.Random(seed)
    records: list[bytes] = []
    while len(records) < count:
        position = Position()
        for ply in range(rng.randint(8, max_plies)):
            moves = position.legal_moves()
            if not moves:
                break
            position.push(rng.choice(moves))
            # The first plies are close to the start position: they would repeat across games.
            if ply < 4 or rng.random() >= keep or position.is_check() or not position.legal_moves():
                continue
            score = evaluate(position)
            result = RESULT_WIN if score > DECISIVE_CP else RESULT_LOSS if score < -DECISIVE_CP else RESULT_DRAW
            records.append(pack(position.fen(), score, result))
            if len(records) == count:
                break
    return b"".join(records)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.nnue_random_data", description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=10_000, help="positions to write (default 10000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, required=True, help="the .kpos file to write")
    args = parser.parse_args(argv)
    args.out.write_bytes(random_records(args.count, args.seed))
    print(f"{args.count} positions written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
