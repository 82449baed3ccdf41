"""How well evaluations predict held-out positions: ``python -m tools.nnue_compare VAL.kpos [NET ...]``.

For the records of a ``.kpos`` file (positions from games the nets were not trained on), it prints, for
the weighted evaluation and for each net file: the correlation of its static score with the search
score, and the trainer's loss (the mean squared error, in win probability, against
``lambda * sigmoid(score / scale) + (1 - lambda) * result / 2``).  It prints the correlation and the
mean absolute error again for the band of positions whose search score is near 0 (``--band``), where
games are decided and where the correlation over all positions, dominated by won positions, can hide
a worse evaluation.  It is a quick check before games:
a net that predicts worse than the weighted evaluation will not beat it; one that predicts better
still has to show it in an SPRT.

A trainer checkpoint (``.npz``, ``tools/nnue_train.py``) in place of a net file is scored with the
float model it holds, before quantisation: beside the net written from it, that shows what the
engine's integer arithmetic costs (numpy needed, as for training).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from pathlib import Path

from eval.api import evaluate
from eval.networks import load_network
from eval.nnue_api import nnue_evaluate
from eval.nnue_file import SCALE
from search.board.position import Position
from tools.arguments import ToolParser, fail, finite_float, parse, positive_int, readable_file
from tools.nnue_data import read_records, records_file
from tools.nnue_train import shipped_recipe

CHECKPOINT_SUFFIX = ".npz"


def engine_net(path: str) -> Callable[[Position], float]:
    """The centipawns of a net file as the engine computes them."""
    network = load_network(path)[0]
    return lambda position: float(nnue_evaluate(network, position))


def float_model(path: str) -> Callable[[Position], float]:
    """The centipawns of a trainer checkpoint's float model (ValueError for a file that is not one)."""
    from tools.nnue_train import HAVE_NUMPY, float_output, load_checkpoint
    if not HAVE_NUMPY:
        raise ValueError("a checkpoint needs numpy: pip install '.[nnue]'")
    net, *_, config = load_checkpoint(Path(path))
    # A checkpoint records the run's --scale; one written before it did was trained at the format's default.
    scale = float(config.get("scale", SCALE))
    return lambda position: float_output(net, position.fen()) * scale


def correlation(xs: list[float], ys: list[float]) -> float:
    """Pearson's correlation; 0 when either side is constant."""
    n = len(xs)
    mean_x, mean_y = sum(xs) / n, sum(ys) / n
    cov = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True))
    var_x = sum((x - mean_x) ** 2 for x in xs)
    var_y = sum((y - mean_y) ** 2 for y in ys)
    return cov / math.sqrt(var_x * var_y) if var_x > 0 and var_y > 0 else 0.0


def sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, x))))


def main(argv: list[str] | None = None) -> int:
    parser = ToolParser(prog="python -m tools.nnue_compare", description=__doc__.split("\n\n")[0])
    parser.add_argument("records", type=records_file, help="held-out .kpos file")
    parser.add_argument("nets", nargs="*", type=readable_file,
                        help="net files (or trainer checkpoints, .npz: their float models) to compare with the "
                             "weighted evaluation")
    parser.add_argument("--every", type=positive_int, default=10, help="use every Nth record (default %(default)s)")
    shipped = shipped_recipe().settings
    parser.add_argument("--lambda", dest="lam", type=finite_float(0.0, 1.0), default=shipped["lam"],
                        help="the trainer's lambda (default %(default)s, the shipped net's recipe's)")
    parser.add_argument("--scale", type=finite_float(0.0, low_open=True), default=shipped["scale"],
                        help="the trainer's scale (default %(default)s, the shipped net's recipe's)")
    parser.add_argument("--band", type=finite_float(0.0, low_open=True), default=200.0,
                        help="also measure the positions whose search score is within this many cp of 0")
    args = parse(parser, argv)
    if args is None:
        return 2
    try:
        nets: dict[str, Callable[[Position], float]] = {}
        for path in map(str, args.nets):
            if path.endswith(CHECKPOINT_SUFFIX):
                nets[path] = float_model(path)
            else:
                nets[path] = engine_net(path)
        rows = [(Position(r.fen), r.score, r.result) for i, r in enumerate(read_records(args.records))
                if i % args.every == 0]
    except (OSError, ValueError) as err:
        return fail(parser.prog, f"{err}; give a net written by tools.nnue_train (or its .npz checkpoint) "
                                 "and a .kpos file")
    if len(rows) < 2:
        return fail(parser.prog, f"fewer than two records in {args.records} (at --every {args.every}); "
                                 "give more records or a smaller --every")
    scores = [float(score) for _, score, _ in rows]
    targets = [args.lam * sigmoid(score / args.scale) + (1 - args.lam) * result / 2 for _, score, result in rows]
    print(f"{len(rows):,} positions of {args.records}")
    band = [i for i, score in enumerate(scores) if abs(score) < args.band]
    print(f"{len(band):,} of them within {args.band:g} cp of 0 (the band)")
    print(f"{'evaluation':<40} {'corr(score)':>12} {'loss':>10} {'band corr':>10} {'band MAE':>9}")
    for name in ["weighted", *nets]:
        net = nets.get(name)
        values = [float(evaluate(position)) if net is None else net(position) for position, _, _ in rows]
        loss = sum((sigmoid(v / args.scale) - t) ** 2 for v, t in zip(values, targets, strict=True)) / len(rows)
        band_values = [values[i] for i in band]
        band_scores = [scores[i] for i in band]
        band_corr = correlation(band_values, band_scores) if len(band) >= 2 else math.nan
        band_mae = sum(abs(v - s) for v, s in zip(band_values, band_scores, strict=True)) / max(1, len(band))
        print(f"{name:<40} {correlation(values, scores):>12.4f} {loss:>10.6f} {band_corr:>10.4f} {band_mae:>9.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
