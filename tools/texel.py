"""The Texel tuner: fit the weights of ``eval/weights.py`` to game results.

``python -m tools.texel data.epd --out tuned_weights.py`` reads labelled positions (the EPD of
``python -m tools.tune_data``), fits the scale K of ``sigmoid(eval) = 1 / (1 + 10^(-K eval / 400))``
to the current weights first, then moves every weight to minimise the mean squared error between
``sigmoid(eval)`` and the result, and writes a copy of ``eval/weights.py`` with the new numbers
(comments and layout kept, so the two files diff line by line).

How it is fast: the evaluation is linear in every weight but ``king_attack_units`` (which picks
an entry of ``king_danger``, so it is left as it is).  The untapered middlegame and endgame sums
of the C evaluation (``eval.api.raw_sums``) are integers, so adding 1 to one weight and
evaluating again gives that weight's exact coefficients in every position.  One pass per weight
(about 0.2 s per million positions each) builds a sparse matrix X with ``eval = X w + c``; after
that an epoch is two sparse products, a second or two for a million positions.  The matrix is
cached beside the data (``DATA.coef.npz``) for the next run.

Progress (epoch, error) is printed; ``--checkpoint FILE`` saves the state every few epochs and on
Ctrl-C, and ``--resume`` continues from it.  Needs numpy and scipy: ``pip install .[tune]``.
"""

from __future__ import annotations

import hashlib
import io
import math
import signal
import sys
import time
import tokenize
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eval import weights as weight_table
from tools.arguments import (
    ToolParser,
    fail,
    finite_float,
    non_negative_int,
    parse,
    positive_int,
    readable_file,
    writable_output,
)
from tools.tune_data import read_positions

try:
    import numpy as np
    import scipy.sparse as sparse  # type: ignore[import-untyped]
    HAVE_NUMPY = True
except ImportError:      # the tune extra is not installed: main() says how to install it
    HAVE_NUMPY = False

# Weights the tuner leaves alone: king_attack_units index king_danger (not linear), and the
# king's material cancels out (one king a side).
FIXED_PREFIXES = ("king_attack_units", "material.king")
PHASE_MAX = 24
CHUNK = 20_000


@dataclass
class Dataset:
    packed: Any          # uint64 (n, 9): bitboards and side to move (eval.api.pack_positions)
    results: Any         # float64 (n,): White's result, 1 / 0.5 / 0
    fingerprint: str     # of the data file and the starting weights, for caches and checkpoints


NUMPY_MISSING = "the Texel tuner needs numpy and scipy: pip install '.[tune]'"


def tunable_indices(names: list[str]) -> list[int]:
    return [i for i, name in enumerate(names) if not name.startswith(FIXED_PREFIXES)]


def load_dataset(path: Path, start: list[int], limit: int | None = None) -> Dataset:
    """Read and pack the positions of `path` (at most `limit`)."""
    from search.board.position import Position
    from tools.texel_kernels import PACKED_WORDS, pack_positions

    fens, results = read_positions(path)
    if limit:
        fens, results = fens[:limit], results[:limit]
    if not fens:
        raise ValueError(f"{path}: no positions")
    packed = np.zeros((len(fens), PACKED_WORDS), dtype=np.uint64)
    for first in range(0, len(fens), CHUNK):
        chunk = [Position(fen) for fen in fens[first:first + CHUNK]]
        pack_positions(chunk, packed[first:first + len(chunk)])
    digest = hashlib.sha256(packed.tobytes())
    digest.update(np.asarray(results, dtype=np.float64).tobytes())
    digest.update(repr(start).encode())
    return Dataset(packed, np.asarray(results, dtype=np.float64), digest.hexdigest()[:16])


def raw(packed: Any) -> tuple[Any, Any, Any]:
    from tools.texel_kernels import raw_sums

    n = packed.shape[0]
    mg, eg, phase = np.zeros(n, np.int32), np.zeros(n, np.int32), np.zeros(n, np.int8)
    raw_sums(packed, mg, eg, phase)
    return mg, eg, phase


def tapered(mg: Any, eg: Any, phase: Any) -> Any:
    """White's evaluation before the integer division and the clamp (floats)."""
    return (mg.astype(np.float64) * phase + eg.astype(np.float64) * (PHASE_MAX - phase)) / PHASE_MAX


def coefficients(data: Dataset, start: list[int], columns: list[int], names: list[str]) -> tuple[Any, Any]:
    """(X, c): X[p, j] is the coefficient of weight columns[j] in position p, c the rest of its
    evaluation, so that White's evaluation is X @ w[columns] + c."""
    from eval.evaluate import load_vector

    mg0, eg0, phase = raw(data.packed)
    base = tapered(mg0, eg0, phase)
    taper_mg = phase.astype(np.float64) / PHASE_MAX
    taper_eg = 1.0 - taper_mg
    rows: list[Any] = []
    cols: list[Any] = []
    values: list[Any] = []
    began = time.monotonic()
    try:
        for j, index in enumerate(columns):
            vector = list(start)
            vector[index] += 1
            load_vector(vector)
            mg, eg, _ = raw(data.packed)
            d_mg, d_eg = mg - mg0, eg - eg0
            touched = np.flatnonzero(d_mg | d_eg)
            rows.append(touched.astype(np.int32))
            cols.append(np.full(touched.size, j, dtype=np.int32))
            values.append((d_mg[touched] * taper_mg[touched] + d_eg[touched] * taper_eg[touched]).astype(np.float32))
            if (j + 1) % 100 == 0 or j + 1 == len(columns):
                print(f"coefficients: {j + 1}/{len(columns)} weights ({names[index]}), "
                      f"{time.monotonic() - began:.0f} s", file=sys.stderr)
    finally:
        load_vector(start)
    matrix = sparse.csr_matrix((np.concatenate(values), (np.concatenate(rows), np.concatenate(cols))),
                               shape=(data.packed.shape[0], len(columns)), dtype=np.float64)
    offset = base - matrix @ np.asarray([start[i] for i in columns], dtype=np.float64)
    return matrix, offset


def cached_coefficients(data: Dataset, path: Path, start: list[int], columns: list[int],
                        names: list[str]) -> tuple[Any, Any]:
    cache = path.with_name(path.name + ".coef.npz")
    if cache.is_file():
        stored = np.load(cache, allow_pickle=False)
        if str(stored["fingerprint"]) == data.fingerprint and stored["shape"][1] == len(columns):
            matrix = sparse.csr_matrix((stored["data"], stored["indices"], stored["indptr"]),
                                       shape=tuple(stored["shape"]))
            return matrix, stored["offset"]
    matrix, offset = coefficients(data, start, columns, names)
    with cache.open("wb") as sink:      # a file object: np.savez would add ".npz" to a name
        np.savez(sink, data=matrix.data, indices=matrix.indices, indptr=matrix.indptr, shape=np.asarray(matrix.shape),
                 offset=offset, fingerprint=np.asarray(data.fingerprint))
    return matrix, offset


def sigmoid(evals: Any, k: float) -> Any:
    return 1.0 / (1.0 + np.power(10.0, -k * evals / 400.0))


def mean_error(evals: Any, results: Any, k: float) -> float:
    return float(np.mean((results - sigmoid(evals, k)) ** 2))


def fit_k(evals: Any, results: Any, low: float = 0.05, high: float = 4.0) -> float:
    """The K that makes the current evaluation predict the results best (golden-section search)."""
    ratio = (math.sqrt(5) - 1) / 2
    a, b = low, high
    for _ in range(60):
        c, d = b - ratio * (b - a), a + ratio * (b - a)
        if mean_error(evals, results, c) < mean_error(evals, results, d):
            b = d
        else:
            a = c
    return (a + b) / 2


@dataclass
class AdamState:
    weights: Any     # the tuned columns, floats
    m: Any
    v: Any
    epoch: int
    k: float


def save_checkpoint(path: Path, state: AdamState, fingerprint: str) -> None:
    with path.open("wb") as sink:
        np.savez(sink, weights=state.weights, m=state.m, v=state.v, epoch=state.epoch, k=state.k,
                 fingerprint=np.asarray(fingerprint))


def load_checkpoint(path: Path, fingerprint: str, size: int) -> AdamState:
    stored = np.load(path, allow_pickle=False)
    if str(stored["fingerprint"]) != fingerprint or stored["weights"].size != size:
        raise ValueError(f"{path} is a checkpoint of other data or other weights")
    return AdamState(stored["weights"], stored["m"], stored["v"], int(stored["epoch"]), float(stored["k"]))


def train(matrix: Any, offset: Any, results: Any, state: AdamState, epochs: int, rate: float,
          checkpoint: Path | None = None, fingerprint: str = "", every: int = 10, report_every: int = 10,
          l2: float = 0.0, start: Any = None, frozen: Any = None) -> AdamState:
    """Full-batch Adam on the mean squared error, from `state` up to epoch `epochs`.

    Adam takes steps of about `rate` whatever the size of a weight's gradient, so a weight seen in
    a few hundred positions would wander as far as the material values.  Two guards: `l2` pulls
    every weight towards `start` (negligible for weights in many positions, decisive for the rare
    ones), and the weights marked in `frozen` do not move at all."""
    beta1, beta2, eps = 0.9, 0.999, 1e-8
    scale = state.k * math.log(10.0) / 400.0
    transposed = matrix.T.tocsr()
    interrupted = False

    def stop(_signum: int, _frame: Any) -> None:
        nonlocal interrupted
        interrupted = True

    previous = signal.signal(signal.SIGINT, stop) if checkpoint is not None else None
    began = time.monotonic()
    try:
        while state.epoch < epochs and not interrupted:
            evals = matrix @ state.weights + offset
            predicted = sigmoid(evals, state.k)
            gradient = transposed @ (-2.0 * (results - predicted) * predicted * (1.0 - predicted) * scale)
            gradient /= results.size
            if l2 and start is not None:
                gradient += 2.0 * l2 * (state.weights - start)
            if frozen is not None:
                gradient[frozen] = 0.0
            state.epoch += 1
            state.m = beta1 * state.m + (1 - beta1) * gradient
            state.v = beta2 * state.v + (1 - beta2) * gradient * gradient
            m_hat = state.m / (1 - beta1 ** state.epoch)
            v_hat = state.v / (1 - beta2 ** state.epoch)
            state.weights = state.weights - rate * m_hat / (np.sqrt(v_hat) + eps)
            if state.epoch % report_every == 0 or state.epoch == epochs:
                error = float(np.mean((results - predicted) ** 2))
                print(f"epoch {state.epoch}: error {error:.6f} ({time.monotonic() - began:.1f} s)", file=sys.stderr)
            if checkpoint is not None and state.epoch % every == 0:
                save_checkpoint(checkpoint, state, fingerprint)
    finally:
        if checkpoint is not None:
            save_checkpoint(checkpoint, state, fingerprint)
            signal.signal(signal.SIGINT, previous)
    if interrupted:
        print(f"interrupted at epoch {state.epoch}; resume with --resume", file=sys.stderr)
    return state


# ---------------------------------------------------------------- writing weights.py

def _number_spans(source: str, first: int, last: int) -> list[tuple[int, int]]:
    """(start, end) offsets of every integer literal (with its unary minus) in source[first:last]."""
    line_starts = [0]
    for line in source.splitlines(keepends=True):
        line_starts.append(line_starts[-1] + len(line))
    spans: list[tuple[int, int]] = []
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    for i, token in enumerate(tokens):
        if token.type != tokenize.NUMBER:
            continue
        start = line_starts[token.start[0] - 1] + token.start[1]
        end = line_starts[token.end[0] - 1] + token.end[1]
        if not first <= start < last:
            continue
        before = tokens[i - 1]
        if before.type == tokenize.OP and before.string == "-" and tokens[i - 2].string in ("(", "[", "{", ",", ":"):
            start = line_starts[before.start[0] - 1] + before.start[1]
        spans.append((start, end))
    return spans


def weights_source(values: list[int], source: str | None = None) -> str:
    """`eval/weights.py` with the numbers of its WEIGHTS table replaced by `values` (the order of
    ``to_vector``); everything else, comments and layout, is kept."""
    if source is None:
        source = Path(weight_table.__file__).read_text()
    first = source.index("WEIGHTS: Weights = {")
    last = source.index("\n}\n", first) + 2
    spans = _number_spans(source, first, last)
    if len(spans) != len(values):
        raise ValueError(f"WEIGHTS holds {len(spans)} numbers, the vector {len(values)}")
    for (start, end), value in sorted(zip(spans, values, strict=True), reverse=True):
        source = source[:start] + str(int(value)) + source[end:]
    return source


# ---------------------------------------------------------------- the command

def main(argv: list[str] | None = None) -> int:
    parser = ToolParser(prog="python -m tools.texel", description=__doc__.split("\n\n")[0])
    parser.add_argument("data", type=readable_file, help="labelled positions (EPD with c9 results)")
    parser.add_argument("--out", type=writable_output, default="tuned_weights.py", help="the new weights.py")
    parser.add_argument("--epochs", type=non_negative_int, default=500)
    parser.add_argument("--rate", type=finite_float(0.0, low_open=True), default=1.0,
                        help="Adam's step in centipawns (default 1.0)")
    parser.add_argument("--limit", type=positive_int, help="use only the first N positions")
    parser.add_argument("--k", type=finite_float(0.0, low_open=True), help="use this K instead of fitting it")
    parser.add_argument("--l2", type=finite_float(0.0), default=5e-8,
                        help="pull towards the starting weights (default 5e-8: a weight in 0.2%% of the positions "
                             "stops about 20 cp away; 0 turns it off)")
    parser.add_argument("--min-count", type=non_negative_int, default=500,
                        help="weights present in fewer positions are not tuned (default 500)")
    parser.add_argument("--checkpoint", type=writable_output,
                        help="save the state here every 10 epochs and on Ctrl-C")
    parser.add_argument("--resume", action="store_true", help="continue from --checkpoint")
    args = parse(parser, argv)
    if args is None:
        return 2
    if not HAVE_NUMPY:
        return fail(parser.prog, NUMPY_MISSING)
    if args.resume and (args.checkpoint is None or not args.checkpoint.is_file()):
        return fail(parser.prog, "--resume needs an existing --checkpoint FILE")

    from eval.evaluate import weights_as_vector

    start = weights_as_vector()
    names = weight_table.weight_names()
    columns = tunable_indices(names)
    began = time.monotonic()
    try:
        data = load_dataset(args.data, start, args.limit)
    except (OSError, ValueError) as exc:
        return fail(parser.prog, f"{exc}; give an EPD file with c9 results (python -m tools.tune_data)")
    print(f"{data.results.size} positions, {len(columns)} of {len(start)} weights tuned "
          f"({time.monotonic() - began:.0f} s to read)", file=sys.stderr)
    matrix, offset = cached_coefficients(data, args.data, start, columns, names)
    initial = np.asarray([start[i] for i in columns], dtype=np.float64)
    evals = matrix @ initial + offset
    if args.resume:
        try:
            state = load_checkpoint(args.checkpoint, data.fingerprint, len(columns))
        except (OSError, ValueError, KeyError, zipfile.BadZipFile) as exc:
            return fail(parser.prog, f"cannot resume from {args.checkpoint}: {exc}; start without --resume")
        print(f"resuming at epoch {state.epoch}, K {state.k:.4f}", file=sys.stderr)
    else:
        k = args.k if args.k else fit_k(evals, data.results)
        state = AdamState(initial.copy(), np.zeros(len(columns)), np.zeros(len(columns)), 0, k)
    print(f"K {state.k:.4f}; error of the current weights {mean_error(evals, data.results, state.k):.6f}",
          file=sys.stderr)
    frozen = np.asarray(matrix.getnnz(axis=0)) < args.min_count
    print(f"{int(frozen.sum())} weights seen in fewer than {args.min_count} positions stay as they are",
          file=sys.stderr)
    state = train(matrix, offset, data.results, state, args.epochs, args.rate, args.checkpoint, data.fingerprint,
                  l2=args.l2, start=initial, frozen=frozen)

    tuned = list(start)
    for j, index in enumerate(columns):
        tuned[index] = int(round(float(state.weights[j])))
    rounded = matrix @ np.asarray([tuned[i] for i in columns], dtype=np.float64) + offset
    print(f"error with the tuned, rounded weights {mean_error(rounded, data.results, state.k):.6f} "
          f"(K {state.k:.4f})", file=sys.stderr)
    args.out.write_text(weights_source(tuned))
    print(f"wrote {args.out}; changed {sum(a != b for a, b in zip(start, tuned, strict=True))} weights")
    return 0


if __name__ == "__main__":
    sys.exit(main())
