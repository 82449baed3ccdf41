"""The NNUE trainer: fits the perspective net of ``eval/nnue_file.py`` to labelled positions.

``python -m tools.nnue_train DATA.kpos [...] --out kestrel.nnue`` reads records of
``tools/nnue_data.py`` (one or more files, memory-mapped) and trains, by a recipe, the float model of
``eval/nnue_file.py``: 768 inputs per perspective into ``--hidden`` units (one shared matrix),
SCReLU, one output ``out`` in units of ``--scale`` centipawns from the output layer of the
position's bucket (``--output-buckets``, by piece count); ``--king-mirror`` mirrors each
perspective's inputs left-right while its own king is on files e-h.  The loss is in win-probability
space: the mean squared error between ``sigmoid(out)`` (= sigmoid(cp / scale)) and the target
``lambda * sigmoid(score / scale) + (1 - lambda) * result / 2``.

AdamW (weight decay on the weights, not the biases), a cosine or step learning-rate schedule with
a linear warm-up, a shuffle per epoch, a held-out validation set (``--val-fraction`` of the data or
``--val FILE``) whose loss is printed every epoch with the speed in positions per second (of the
training steps: reading the batch, the kernels and AdamW; the validation pass not counted), and a
checkpoint after every epoch (float weights and optimizer state, ``.npz``) that ``--resume`` continues
from, giving the same weights as a run that was never interrupted.  ``--init NET.nnue`` starts instead
from a finished net's weights (a new run, fresh optimizer state): a net trained on earlier data goes
on learning from new data, a one-bucket net's output layer is copied to each output bucket, and with a
larger ``--hidden`` the net is widened: the new units get zero output weights, so the wider net starts
as the same function (``FloatNet.widened``).
After every weight update the weights are clipped to [-WEIGHT_CLIP, WEIGHT_CLIP] so that their int16
quantisation cannot overflow.  At the end (and after every epoch with ``--net-every-epoch``) the
quantised net is written with ``eval.nnue_file.write_net``, the recipe's name and the command line in
its description.

The recipe (``--recipe FILE``, ``tools/nnue_recipe.py``) holds every training setting above (hidden
units, buckets, epochs, batch, learning rate and schedule, weight decay, lambda, scale, seed); by default
it is the recipe that made the shipped net (``tools/recipes/`` holds it under the net's name), and a
flag given on the command line overrides one of its settings (``--epochs 3``, ``--no-king-mirror``).

Speed: the first layer is sparse (at most 32 active inputs of 768), so the forward pass and the
backward pass are the Cython kernels of ``tools/nnue_kernels.pyx``; a batch is split across
``--threads`` Python threads (the kernels release the GIL), each with its own gradient buffers.
``python -m tools.nnue_train --bench`` measures positions per second on synthetic records.
Needs numpy: ``pip install '.[nnue]'``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shlex
import sys
import time
import zipfile
from array import array
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from eval.nnue_architecture import (
    FEATURES_KING_MIRRORED,
    FEATURES_PLAIN,
    INPUTS,
    OUTPUT_BUCKETS_MAX,
    QB_MAX,
    SCALE_MAX,
    active_features,
    output_bucket,
)
from eval.nnue_file import (
    QA,
    SCALE,
    WEIGHT_CLIP,
    NetParameters,
    check_buckets,
    check_feature_set,
    check_hidden,
    read_net,
    write_net,
)
from search.board.position import Position
from search.limits import MAX_THREADS
from tools import nnue_kernels
from tools.arguments import (
    ToolParser,
    creatable_folder,
    fail,
    finite_float,
    int_range,
    non_negative_int,
    parse,
    positive_int,
    readable_file,
    writable_output,
)
from tools.game_records import GAME_SUFFIX, Filters, training_array
from tools.nnue_data import RECORD_SIZE, first_bad_record, records_file
from tools.nnue_recipe import DEFAULT_RECIPE, Recipe, apply_recipe, load_recipe

try:
    import numpy as np
    HAVE_NUMPY = True
except ImportError:     # the nnue extra is not installed: the command says how to install it
    HAVE_NUMPY = False

if TYPE_CHECKING:
    from numpy.typing import NDArray

Array: TypeAlias = "NDArray[Any]"
PROG = "python -m tools.nnue_train"
# The largest scale the engine's Network accepts (raw * scale stays inside int64): --scale's bound.
MAX_SCALE = SCALE_MAX
# Beyond these the run is a mistake: threads as many as the engine's Threads option allows
# (search.limits.MAX_THREADS), each with its own gradient buffers; synthetic benchmark records that fit
# in memory with their shuffle.
MAX_BENCH_POSITIONS = 4_000_000
PARAMETER_NAMES = ("W", "bias", "w_out", "b_out")
# Weight decay pulls weights toward zero; the biases set the operating point and are left alone.
DECAYED = ("W", "w_out")
CHECKPOINT_FORMAT = 1
VALIDATION_CHUNK = 65536


@dataclass
class FloatNet:
    """The float parameters: W (768, N), bias (N), w_out (B * 2N: per output bucket the side to move's
    half first), b_out (B); and the feature set its inputs follow (eval/nnue_architecture.pxd)."""

    W: Array
    bias: Array
    w_out: Array
    b_out: Array
    feature_set: int = FEATURES_PLAIN

    @property
    def hidden(self) -> int:
        return int(self.W.shape[1])

    @property
    def buckets(self) -> int:
        return int(self.b_out.shape[0])

    def arrays(self) -> dict[str, Array]:
        return {name: getattr(self, name) for name in PARAMETER_NAMES}

    @classmethod
    def initial(cls, hidden: int, rng: np.random.Generator, dtype: Any = "float32", buckets: int = 1,
                feature_set: int = FEATURES_PLAIN) -> FloatNet:
        """Small random weights; a positive bias keeps most units inside the clamp's slope at first.
        Every output bucket starts from the same weights (a one-bucket net's draw, so adding buckets
        changes nothing else), and they part as each learns its own positions."""
        W = rng.normal(0.0, 0.05, (INPUTS, hidden)).astype(dtype)
        w_out = rng.normal(0.0, 1.0 / math.sqrt(2 * hidden), 2 * hidden).astype(dtype)
        return cls(W=W, bias=np.full(hidden, 0.25, dtype=dtype), w_out=np.tile(w_out, buckets),
                   b_out=np.zeros(buckets, dtype=dtype), feature_set=feature_set)

    def widened(self, hidden: int, rng: np.random.Generator) -> FloatNet:
        """This net with `hidden` units per perspective: the new units start as `initial` draws them,
        but with zero output weights in every bucket and both halves, so the wider net computes this
        net's function exactly and training grows the new units from there."""
        added = hidden - self.hidden
        if added < 0:
            raise ValueError(f"a net of {self.hidden} hidden units cannot be narrowed to {hidden}")
        fresh = FloatNet.initial(added, rng, self.W.dtype, self.buckets, self.feature_set)
        halves = self.w_out.reshape(self.buckets, 2, self.hidden)
        w_out = np.concatenate([halves, np.zeros((self.buckets, 2, added), dtype=self.w_out.dtype)], axis=2)
        return FloatNet(W=np.concatenate([self.W, fresh.W], axis=1), bias=np.concatenate([self.bias, fresh.bias]),
                        w_out=w_out.reshape(-1), b_out=self.b_out.copy(), feature_set=self.feature_set)

    def clip(self) -> None:
        for name in ("W", "bias", "w_out"):
            np.clip(getattr(self, name), -WEIGHT_CLIP, WEIGHT_CLIP, out=getattr(self, name))


INT16_MAX = 32767


def output_scale(w_out: Array, qa: int = QA) -> int:
    """QB for these output weights: the largest that keeps every ``qa * w_q`` inside int16.

    Rounding moves an output weight by up to 1/(2 QB), and that error reaches the score through every
    active unit, so a finer QB is a more faithful net.  int16 products ``v * w_q`` (v in 0..qa) keep the
    engine on its fast 16-bit output path.  With weights at WEIGHT_CLIP that gives QB = 64, the old fixed
    value; weight decay keeps trained output weights far smaller, and their QB finer (docs/nnue.md).
    """
    largest = float(np.abs(w_out.astype(np.float64)).max(initial=0.0))
    limit = INT16_MAX // qa
    qb = QB_MAX if largest == 0.0 else max(1, min(QB_MAX, int((limit + 0.5) / largest) + 1))
    while qb > 1 and np.rint(largest * qb) > limit:
        qb -= 1
    return qb


def quantise(net: FloatNet, scale: int = SCALE, description: str = "", qb: int | None = None) -> NetParameters:
    """The int16/int32 net of ``eval/nnue_file.py``'s quantisation (round to nearest), with QB `qb` or,
    by default, the one `output_scale` chooses."""
    def int16(values: Array, factor: int) -> array[int]:
        quantised = np.rint(values.astype(np.float64) * factor)
        if np.abs(quantised).max(initial=0) > INT16_MAX:
            raise ValueError("a weight does not fit in int16 after quantisation: were the weights clipped?")
        return array("h", quantised.astype("<i2").tobytes())

    qb = output_scale(net.w_out) if qb is None else qb
    return NetParameters(hidden=net.hidden, qa=QA, qb=qb, scale=scale, description=description,
                         feature_weights=int16(net.W.reshape(-1), QA), feature_bias=int16(net.bias, QA),
                         output_weights=int16(net.w_out, qb),
                         output_biases=tuple(int(np.rint(float(bias) * QA * qb)) for bias in net.b_out),
                         feature_set=net.feature_set)


def dequantise(params: NetParameters, buckets: int | None = None, dtype: Any = "float64") -> FloatNet:
    """The float net whose weights are those of the quantised net `params` (exactly, in float64);
    with `buckets`, a one-bucket net's output layer copied to each of `buckets` (ValueError for
    another count when `params` has several buckets already)."""
    if buckets is None:
        buckets = params.buckets
    if buckets != params.buckets and params.buckets != 1:
        raise ValueError(f"the net has {params.buckets} output buckets; it cannot start a net of {buckets}")
    copies = buckets // params.buckets

    def scaled(values: Any, factor: int) -> Array:
        return (np.array(values, dtype=np.float64) / factor).astype(dtype)

    return FloatNet(W=scaled(params.feature_weights, params.qa).reshape(INPUTS, -1),
                    bias=scaled(params.feature_bias, params.qa),
                    w_out=np.tile(scaled(params.output_weights, params.qb), copies),
                    b_out=np.tile(scaled(params.output_biases, params.qa * params.qb), copies),
                    feature_set=params.feature_set)


def float_output(net: FloatNet, fen: str) -> float:
    """The float model's output (units of scale) for one FEN, computed densely in numpy: the reference
    the kernels are tested against."""
    white, black, stm = active_features(Position(fen), net.feature_set)
    x = np.zeros((2, INPUTS))
    x[0, white] = 1.0
    x[1, black] = 1.0
    acc = x @ net.W.astype(np.float64) + net.bias.astype(np.float64)
    v = np.clip(acc, 0.0, 1.0) ** 2
    hidden = net.hidden
    bucket = output_bucket(len(white), net.buckets)
    w_out = net.w_out.astype(np.float64)[2 * bucket * hidden:2 * (bucket + 1) * hidden]
    return float(v[stm] @ w_out[:hidden] + v[1 - stm] @ w_out[hidden:] + float(net.b_out[bucket]))


CHECK_CHUNK = 1 << 20


def check_records(path: Path, records: Array) -> None:
    """ValueError naming the first record of `path` that breaks the format (the kernels would skip
    its extra pieces or stop the run at its batch); one pass over the file, a chunk at a time."""
    for first in range(0, len(records), CHECK_CHUNK):
        found = first_bad_record(np.asarray(records[first:first + CHECK_CHUNK]))
        if found is not None:
            raise ValueError(f"{path}: record {first + found[0]}: {found[1]}; not a valid .kpos file")


class Records:
    """The records of one or more files as one indexable set (each file memory-mapped)."""

    def __init__(self, parts: Sequence[Array]) -> None:
        self.parts = [part for part in parts if len(part)]
        self.offsets = np.cumsum([0] + [len(part) for part in self.parts])

    @classmethod
    def load(cls, paths: Sequence[Path], filters: Filters | None = None) -> Records:
        """The records of `paths`, each checked (`check_records`) before training starts; a game
        file (.kgame) gives the records of the positions `filters` keep, made in memory."""
        parts = []
        for path in paths:
            if path.suffix == GAME_SUFFIX:
                parts.append(training_array(str(path), filters or Filters()))
                continue
            count = os.path.getsize(path) // RECORD_SIZE
            if count:
                part = np.memmap(path, dtype=np.uint8, mode="r", shape=(count, RECORD_SIZE))
                check_records(path, part)
                parts.append(part)
        return cls(parts)

    def __len__(self) -> int:
        return int(self.offsets[-1])

    def gather(self, indices: Array) -> Array:
        """The records at `indices` as one C-contiguous (n, 32) uint8 array, in the order given."""
        if len(self.parts) == 1:
            return np.ascontiguousarray(self.parts[0][indices])
        out = np.empty((len(indices), RECORD_SIZE), dtype=np.uint8)
        which = np.searchsorted(self.offsets, indices, side="right") - 1
        for part_index, part in enumerate(self.parts):
            mask = which == part_index
            out[mask] = part[indices[mask] - self.offsets[part_index]]
        return out


class AdamW:
    """Adam with decoupled weight decay (Loshchilov and Hutter), in place on the net's arrays."""

    def __init__(self, net: FloatNet, weight_decay: float, beta1: float = 0.9, beta2: float = 0.999,
                 eps: float = 1e-8) -> None:
        self.weight_decay, self.beta1, self.beta2, self.eps = weight_decay, beta1, beta2, eps
        self.m = {name: np.zeros_like(value) for name, value in net.arrays().items()}
        self.v = {name: np.zeros_like(value) for name, value in net.arrays().items()}
        self.steps = 0

    def update(self, net: FloatNet, grads: dict[str, Array], lr: float) -> None:
        self.steps += 1
        correction1 = 1.0 - self.beta1 ** self.steps
        correction2 = 1.0 - self.beta2 ** self.steps
        step_size = lr / correction1
        for name, param in net.arrays().items():
            grad, m, v = grads[name], self.m[name], self.v[name]
            m *= self.beta1
            m += (1.0 - self.beta1) * grad
            v *= self.beta2
            v += (1.0 - self.beta2) * grad * grad
            if name in DECAYED and self.weight_decay:
                param *= 1.0 - lr * self.weight_decay
            denominator = np.sqrt(v / correction2)
            denominator += self.eps
            param -= step_size * m / denominator


def learning_rate(args: argparse.Namespace, step: int, total_steps: int, steps_per_epoch: int) -> float:
    """The learning rate of optimizer step `step` (0-based): a linear warm-up, then cosine or steps."""
    if step < args.warmup_steps:
        return float(args.lr * (step + 1) / args.warmup_steps)
    if args.schedule == "step":
        return float(args.lr * args.lr_gamma ** ((step // steps_per_epoch) // args.lr_step_epochs))
    span = max(1, total_steps - args.warmup_steps)
    progress = min(1.0, (step - args.warmup_steps) / span)
    low = args.lr * args.lr_min_ratio
    return float(low + 0.5 * (args.lr - low) * (1.0 + math.cos(math.pi * progress)))


class Trainer:
    """The net, its optimizer, and the per-thread buffers of one training run."""

    def __init__(self, net: FloatNet, threads: int, lam: float, scale: float, weight_decay: float) -> None:
        self.net = net
        self.threads = max(1, threads)
        self.lam, self.inv_scale = lam, 1.0 / scale
        self.optimizer = AdamW(net, weight_decay)
        self.pool = ThreadPoolExecutor(self.threads) if self.threads > 1 else None
        self.grads = [{name: np.zeros_like(value) for name, value in net.arrays().items()}
                      for _ in range(self.threads)]

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown()

    def _slices(self, count: int) -> list[slice]:
        bounds = [count * k // self.threads for k in range(self.threads + 1)]
        return [slice(bounds[k], bounds[k + 1]) for k in range(self.threads)]

    def gradient(self, records: Array) -> tuple[float, dict[str, Array]]:
        """The summed squared error of `records` and the gradient of its mean."""
        net = self.net
        grad_scale = 1.0 / len(records)

        def work(k: int, part: slice) -> float:
            grads = self.grads[k]
            for value in grads.values():
                value.fill(0)
            return float(nnue_kernels.train_batch(
                records[part], net.W, net.bias, net.w_out, net.b_out, self.lam, self.inv_scale,
                grad_scale, grads["W"], grads["bias"], grads["w_out"], grads["b_out"], net.feature_set))

        parts = self._slices(len(records))
        if self.pool is None:
            losses = [work(0, parts[0])]
        else:
            losses = list(self.pool.map(work, range(self.threads), parts))
        total = self.grads[0]
        for other in self.grads[1:]:
            for name in PARAMETER_NAMES:
                total[name] += other[name]
        return sum(losses), total

    def step(self, records: Array, lr: float) -> float:
        """One optimizer step on a batch; returns its summed squared error."""
        loss, grads = self.gradient(records)
        self.optimizer.update(self.net, grads, lr)
        self.net.clip()
        return loss

    def outputs(self, records: Array) -> tuple[Array, Array]:
        """The float model's outputs and the targets of `records` (forward only, across the threads)."""
        dtype = self.net.W.dtype
        out = np.empty(len(records), dtype=dtype)
        target = np.empty(len(records), dtype=dtype)
        net = self.net

        def work(part: slice) -> None:
            nnue_kernels.forward(records[part], net.W, net.bias, net.w_out, net.b_out, self.lam,
                                 self.inv_scale, out[part], target[part], net.feature_set)

        if self.pool is None:
            work(slice(0, len(records)))
        else:
            list(self.pool.map(work, self._slices(len(records))))
        return out, target

    def loss(self, records: Records, indices: Array) -> float:
        """The mean squared error in win probability over the records at `indices`."""
        total = 0.0
        for first in range(0, len(indices), VALIDATION_CHUNK):
            out, target = self.outputs(records.gather(np.sort(indices[first:first + VALIDATION_CHUNK])))
            error = 1.0 / (1.0 + np.exp(-out.astype(np.float64))) - target
            total += float(error @ error)
        return total / max(1, len(indices))


def save_checkpoint(path: Path, trainer: Trainer, epoch: int, config: dict[str, Any]) -> None:
    """Float weights, optimizer state and the run's settings, written whole (a temporary file, then a rename)."""
    arrays: dict[str, Any] = dict(trainer.net.arrays())
    for name in PARAMETER_NAMES:
        arrays[f"adam_m_{name}"] = trainer.optimizer.m[name]
        arrays[f"adam_v_{name}"] = trainer.optimizer.v[name]
    arrays["adam_steps"] = np.array(trainer.optimizer.steps)
    arrays["epoch"] = np.array(epoch)
    arrays["config"] = np.array(json.dumps({**config, "format": CHECKPOINT_FORMAT,
                                            "feature_set": trainer.net.feature_set}))
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    with open(temporary, "wb") as handle:
        np.savez(handle, **arrays)
    os.replace(temporary, path)


def load_checkpoint(path: Path) -> tuple[FloatNet, dict[str, Array], dict[str, Array], int, int, dict[str, Any]]:
    """(net, Adam m, Adam v, Adam steps, completed epochs, settings) of a checkpoint; ValueError
    naming the problem when the file is not a whole checkpoint of this trainer."""
    try:
        with np.load(path) as data:
            config = json.loads(str(data["config"]))
            if not isinstance(config, dict) or config.get("format") != CHECKPOINT_FORMAT:
                found = config.get("format") if isinstance(config, dict) else None
                raise ValueError(f"format {found}, this trainer writes {CHECKPOINT_FORMAT}")
            net = FloatNet(**{name: np.array(data[name], dtype=np.float32) for name in PARAMETER_NAMES},
                           feature_set=int(config.get("feature_set", FEATURES_PLAIN)))
            m = {name: np.array(data[f"adam_m_{name}"], dtype=np.float32) for name in PARAMETER_NAMES}
            v = {name: np.array(data[f"adam_v_{name}"], dtype=np.float32) for name in PARAMETER_NAMES}
            steps, epoch = int(data["adam_steps"]), int(data["epoch"])
        check_feature_set(net.feature_set)
    except (OSError, KeyError, ValueError, TypeError, zipfile.BadZipFile) as error:
        raise ValueError(f"{path}: not a checkpoint of this trainer ({error})") from None
    hidden = net.W.shape[1] if net.W.ndim == 2 else 0
    buckets = net.b_out.shape[0] if net.b_out.ndim == 1 and 1 <= net.b_out.shape[0] <= OUTPUT_BUCKETS_MAX else 0
    shapes = {"W": (INPUTS, hidden), "bias": (hidden,), "w_out": (buckets * 2 * hidden,), "b_out": (buckets,)}
    for name in PARAMETER_NAMES:
        arrays = (getattr(net, name), m[name], v[name])
        if any(array_.shape != shapes[name] for array_ in arrays):
            raise ValueError(f"{path}: a damaged checkpoint ({name} has the shape {getattr(net, name).shape})")
        if not all(np.isfinite(array_).all() for array_ in arrays):
            raise ValueError(f"{path}: a damaged checkpoint ({name} holds values that are not finite)")
    return net, m, v, steps, epoch, config


def synthetic_records(count: int, rng: np.random.Generator, min_pieces: int = 10, max_pieces: int = 32) -> Array:
    """Random records for the benchmark: `min_pieces`..`max_pieces` pieces (uniform) of random kinds on
    random squares, random scores and results.  Not chess, but the kernels' work depends only on the
    piece count."""
    records = np.zeros((count, RECORD_SIZE), dtype=np.uint8)
    pieces = rng.integers(min_pieces, max_pieces + 1, count)
    order = np.argsort(rng.random((count, 64)), axis=1)
    occupied = np.zeros(count, dtype=np.uint64)
    for k in range(max_pieces):
        present = pieces > k
        occupied[present] |= np.left_shift(np.uint64(1), order[present, k].astype(np.uint64))
    records[:, :8] = occupied.astype("<u8").view(np.uint8).reshape(count, 8)
    codes = rng.integers(0, 12, (count, 32), dtype=np.uint8)
    records[:, 8:24] = codes[:, 0::2] | (codes[:, 1::2] << 4)
    records[:, 24:26] = rng.integers(-800, 800, count).astype("<i2").view(np.uint8).reshape(count, 2)
    records[:, 26] = rng.integers(0, 3, count)
    records[:, 27] = rng.integers(0, 2, count) << 7
    return records


def split_indices(total: int, val_fraction: float, seed: int) -> tuple[Array, Array]:
    """(training, validation) indices: a fixed random `val_fraction` of the positions held out."""
    order = np.random.default_rng([seed, 1]).permutation(total)
    held = int(round(total * val_fraction))
    return np.sort(order[held:]), np.sort(order[:held])


def epoch_order(indices: Array, seed: int, epoch: int) -> Array:
    """The shuffle of epoch `epoch`: a function of the seed and the epoch alone, so a resumed run
    sees the same batches as an uninterrupted one."""
    return indices[np.random.default_rng([seed, 2, epoch]).permutation(len(indices))]


def supported(check: Callable[[int], None], name: str) -> Callable[[str], int]:
    """An argparse ``type=``: a positive whole number that `check` (one of the net file format's
    bounds, raising ValueError) accepts."""
    def parse_value(text: str) -> int:
        value = positive_int(text)
        try:
            check(value)
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error)) from None
        return value

    parse_value.__name__ = name
    return parse_value


hidden_size = supported(check_hidden, "hidden_size")        # a hidden width
bucket_count = supported(check_buckets, "bucket_count")     # a number of output buckets


def training_file(text: str) -> Path:
    """An argparse ``type=``: a game file (.kgame, read whole games at load time) or a record file."""
    return readable_file(text) if text.endswith(GAME_SUFFIX) else records_file(text)


def build_parser() -> tuple[ToolParser, dict[str, argparse.Action]]:
    """The trainer's parser and its recipe options (name without the dashes -> action): those have no
    default here, the recipe (``--recipe``) gives every one of them."""
    parser = ToolParser(prog=PROG,
                        description="Train Kestrel's NNUE net on .kpos records (tools/nnue_data.py). The options "
                                    "marked (recipe) default to the recipe's value (--recipe).")
    settings: dict[str, argparse.Action] = {}

    def setting(name: str, help_text: str = "", dest: str | None = None, **kwargs: Any) -> None:
        settings[name] = parser.add_argument(f"--{name}", dest=dest or name.replace("-", "_"), default=None,
                                             help=f"{help_text} (recipe)", **kwargs)

    unit = finite_float(0.0, 1.0)
    parser.add_argument("inputs", nargs="*", type=training_file,
                        help="training data: .kpos record files or .kgame game files (their quiet positions)")
    parser.add_argument("--recipe", type=readable_file, default=DEFAULT_RECIPE,
                        help=f"the recipe: a JSON file of settings (default {DEFAULT_RECIPE.name}, the shipped "
                             f"net's, in tools/recipes/)")
    parser.add_argument("--out", type=writable_output, default=None, help="the net to write (default kestrel.nnue)")
    setting("hidden", "hidden units per perspective", type=hidden_size)
    setting("output-buckets", f"output layers chosen by piece count, 1..{OUTPUT_BUCKETS_MAX}", type=bucket_count)
    setting("king-mirror", "mirror a perspective's inputs left-right while its king is on files e-h (feature "
                           "set 1; a position and its mirror image then train the same inputs, so merge "
                           "the data without --mirror)", action=argparse.BooleanOptionalAction)
    setting("epochs", "passes over the training positions", type=non_negative_int)
    setting("batch", "positions per optimizer step", type=positive_int)
    setting("lr", "peak learning rate", type=finite_float(0.0, 1.0, low_open=True))
    setting("schedule", "cosine decay to lr * --lr-min-ratio, or steps of --lr-gamma every --lr-step-epochs",
            choices=("cosine", "step"))
    setting("warmup-steps", "linear warm-up, in optimizer steps", type=non_negative_int)
    setting("lr-min-ratio", "where the cosine decay ends, as a share of --lr", type=unit)
    setting("lr-step-epochs", "epochs between the steps of the step schedule", type=positive_int)
    setting("lr-gamma", "the step schedule's factor", type=finite_float(0.0, 1.0, low_open=True))
    # Up to 1: with --lr at most 1, a step shrinks a weight by the factor 1 - lr * decay, never past 0.
    setting("weight-decay", "AdamW's decoupled weight decay", type=unit)
    setting("lambda", "weight of the search score in the target (1 - lambda: the game result)", dest="lam",
            metavar="LAMBDA", type=unit)
    setting("scale", f"centipawns per unit of the output (1..{MAX_SCALE}, the engine's bound)",
            type=int_range(1, MAX_SCALE))
    setting("val-fraction", "held-out share of the inputs, drawn by --seed (ignored with --val)",
            type=finite_float(0.0, 1.0, high_open=True))
    parser.add_argument("--val", type=training_file, action="append", default=[],
                        help="a validation .kpos or .kgame file instead (repeatable)")
    setting("min-ply", "from .kgame files, skip each game's first plies", type=non_negative_int)
    parser.add_argument("--checkpoint-dir", type=creatable_folder, default=None,
                        help="where the per-epoch checkpoints go (default: OUT.checkpoints)")
    parser.add_argument("--resume", type=readable_file, default=None, help="continue from a checkpoint")
    parser.add_argument("--init", type=readable_file, default=None, metavar="NET",
                        help="start from this net file's weights (a new run: not with --resume)")
    parser.add_argument("--net-every-epoch", action="store_true", help="also write OUT.epochN.nnue each epoch")
    parser.add_argument("--threads", type=int_range(1, MAX_THREADS), default=min(MAX_THREADS, os.cpu_count() or 1))
    setting("seed", "draws the first weights, the validation positions and the shuffles", type=non_negative_int)
    parser.add_argument("--bench", type=int_range(1, MAX_BENCH_POSITIONS), nargs="?", const=400_000, default=None,
                        metavar="POSITIONS",
                        help="measure training speed on synthetic records (default 400000) or on the inputs; "
                             "writes nothing")
    return parser, settings


def shipped_recipe() -> Recipe:
    """The recipe of the shipped net, checked as the trainer checks it (settings keyed by argparse destination)."""
    return load_recipe(DEFAULT_RECIPE, build_parser()[1])


def parse_args(argv: Sequence[str]) -> argparse.Namespace | None:
    """The checked arguments, or None once a one-line error is on stderr: every number in its range
    and every file checked (inputs readable, outputs creatable) before any work.  The recipe fills
    the settings the command line leaves out (``args.recipe`` becomes the `Recipe`); ``args.given``
    names those the command line set."""
    parser, settings = build_parser()
    args = parse(parser, argv)
    if args is None:
        return None
    try:
        args.recipe = load_recipe(args.recipe, settings)
    except (OSError, ValueError) as error:
        fail(PROG, f"argument --recipe: {error}")
        return None
    args.given = apply_recipe(args, args.recipe)
    if not args.inputs and args.bench is None:
        fail(PROG, "give one or more .kpos files (or --bench)")
        return None
    if args.bench is not None:
        return args
    try:
        # The defaults are checked too: a run must not find out after an epoch that it cannot save.
        if args.out is None:
            args.out = writable_output("kestrel.nnue")
        if args.checkpoint_dir is None:
            args.checkpoint_dir = creatable_folder(str(args.out.with_name(args.out.name + ".checkpoints")))
    except argparse.ArgumentTypeError as error:
        fail(PROG, f"argument --out: {error}")
        return None
    return args


def prepare_data(args: argparse.Namespace) -> tuple[Records, Records, Array, Array]:
    """(training records, validation records, training indices, validation indices); ValueError
    naming the file and the record when a record breaks the format."""
    if args.bench is not None and not args.inputs:
        data = Records([synthetic_records(args.bench, np.random.default_rng([args.seed, 3]))])
    else:
        data = Records.load(args.inputs, Filters(min_ply=args.min_ply))
    if args.val:
        val_data = Records.load(args.val, Filters(min_ply=args.min_ply))
        return data, val_data, np.arange(len(data)), np.arange(len(val_data))
    if args.bench is not None:
        return data, data, np.arange(len(data)), np.arange(0)
    train_idx, val_idx = split_indices(len(data), args.val_fraction, args.seed)
    return data, data, train_idx, val_idx


@dataclass
class StartState:
    """Where a run starts: a fresh net, or the net and Adam's state of --resume, and the epochs done."""

    net: FloatNet
    adam: tuple[dict[str, Array], dict[str, Array], int] | None
    epoch: int


def start_state(args: argparse.Namespace) -> StartState:
    """The run's starting point; ValueError when --resume is not a checkpoint this run can continue,
    or --init not a net it can start from.  A resumed or initialised run takes its shape (hidden
    units, output buckets, inputs) from its file, not from the recipe; a flag that contradicts the
    file is refused."""
    given = args.given
    if args.init is not None:
        if args.resume is not None:
            raise ValueError("--init starts a new run and --resume continues one: give one of them")
        params = read_net(args.init)
        if "hidden" in given and args.hidden < params.hidden:
            raise ValueError(f"--hidden {args.hidden} is narrower than {args.init}'s {params.hidden}: a net can "
                             f"start a wider one, not a narrower one")
        mirrored = params.feature_set == FEATURES_KING_MIRRORED
        if "king_mirror" in given and args.king_mirror != mirrored:
            # A plain net's weights for a king on files e-h would be read as if mirrored, and the reverse.
            raise ValueError(f"--{'' if args.king_mirror else 'no-'}king-mirror needs a "
                             f"{'king-mirrored' if args.king_mirror else 'plain'} net to start from; "
                             f"{args.init} is {'king-mirrored' if mirrored else 'plain'}")
        buckets = args.output_buckets if "output_buckets" in given else None
        net = dequantise(params, buckets, "float32")
        if "hidden" in given and args.hidden > net.hidden:
            net = net.widened(args.hidden, np.random.default_rng([args.seed, 0]))
        return StartState(net, None, 0)
    if args.resume is None:
        return StartState(FloatNet.initial(args.hidden, np.random.default_rng([args.seed, 0]),
                                           buckets=args.output_buckets,
                                           feature_set=FEATURES_KING_MIRRORED if args.king_mirror else FEATURES_PLAIN),
                          None, 0)
    net, m, v, adam_steps, start_epoch, saved = load_checkpoint(args.resume)
    if "hidden" in given and args.hidden != net.hidden:
        raise ValueError(f"--hidden {args.hidden} differs from the checkpoint's {net.hidden}; leave --hidden out")
    if "output_buckets" in given and args.output_buckets != net.buckets:
        raise ValueError(f"--output-buckets {args.output_buckets} differs from the checkpoint's {net.buckets}; "
                         f"leave --output-buckets out")
    if "king_mirror" in given and args.king_mirror != (net.feature_set == FEATURES_KING_MIRRORED):
        raise ValueError(f"--{'' if args.king_mirror else 'no-'}king-mirror differs from the checkpoint's "
                         f"{'king-mirrored' if net.feature_set == FEATURES_KING_MIRRORED else 'plain'} inputs; "
                         f"leave it out")
    check_hidden(net.hidden)
    if saved.get("seed") != args.seed:
        # The seed draws the validation positions: another one would train on some of them.
        print(f"warning: --seed {args.seed} differs from the checkpoint's {saved.get('seed')}", flush=True)
    return StartState(net, (m, v, adam_steps), start_epoch)


def make_trainer(args: argparse.Namespace, start: StartState) -> Trainer:
    """A trainer for the net of `start`, with its optimizer state when resumed."""
    trainer = Trainer(start.net, args.threads, args.lam, args.scale, args.weight_decay)
    if start.adam is not None:
        trainer.optimizer.m, trainer.optimizer.v, trainer.optimizer.steps = start.adam
    return trainer


def train(argv: Sequence[str]) -> int:
    """The command: returns the exit status."""
    args = parse_args(argv)
    if args is None:
        return 2
    if not HAVE_NUMPY:
        return fail(PROG, "the trainer needs numpy: pip install '.[nnue]' (or pip install numpy)")
    bench = args.bench is not None
    try:
        # The checkpoint first: it is small, and the data's check reads every record.
        start = start_state(args)
        data, val_data, train_idx, val_idx = prepare_data(args)
    except (OSError, ValueError) as error:
        return fail(PROG, str(error))
    if len(train_idx) == 0:
        return fail(PROG, "no training positions in the inputs; give .kpos files with records "
                          "(or a smaller --val-fraction)")
    trainer, start_epoch = make_trainer(args, start), start.epoch
    net = trainer.net
    steps_per_epoch = math.ceil(len(train_idx) / args.batch)
    total_steps = steps_per_epoch * args.epochs
    checkpoint_dir = args.checkpoint_dir
    command = "python -m tools.nnue_train " + shlex.join(str(a) for a in argv)
    config = {"hidden": net.hidden, "buckets": net.buckets, "command": command, "seed": args.seed,
              "scale": args.scale, "recipe": args.recipe.name}
    print(f"recipe {args.recipe.name}: {args.recipe.path}", flush=True)
    print(f"{len(train_idx):,} training positions, {len(val_idx):,} validation; hidden {net.hidden}, "
          f"{net.buckets} output bucket{'s' if net.buckets > 1 else ''}, "
          f"{'king-mirrored' if net.feature_set == FEATURES_KING_MIRRORED else 'plain'} inputs, "
          f"batch {args.batch}, {steps_per_epoch} steps per epoch, {args.threads} threads", flush=True)
    speeds: list[float] = []
    val_loss = float("nan")
    try:
        for epoch in range(start_epoch, args.epochs):
            order = epoch_order(train_idx, args.seed, epoch)
            started = time.perf_counter()
            loss_sum = 0.0
            lr = args.lr
            for index, first in enumerate(range(0, len(order), args.batch)):
                lr = learning_rate(args, epoch * steps_per_epoch + index, total_steps, steps_per_epoch)
                # Sorted within the batch: the memory map is read in file order (the sum is unchanged).
                batch = data.gather(np.sort(order[first:first + args.batch]))
                loss_sum += trainer.step(batch, lr)
            elapsed = time.perf_counter() - started
            speeds.append(len(order) / elapsed)
            line = (f"epoch {epoch + 1}/{args.epochs}  train loss {loss_sum / len(order):.6f}  lr {lr:.2e}  "
                    f"{speeds[-1]:,.0f} pos/s ({elapsed:.1f} s)")
            if len(val_idx):
                val_loss = trainer.loss(val_data, val_idx)
                line += f"  val loss {val_loss:.6f}"
            print(line, flush=True)
            if bench:
                continue
            save_checkpoint(checkpoint_dir / f"epoch-{epoch + 1:04d}.npz", trainer, epoch + 1, config)
            if args.net_every_epoch:
                description = describe(args.recipe, command, data, args.inputs, epoch + 1, val_loss)
                write_net(args.out.with_name(f"{args.out.stem}.epoch{epoch + 1}{args.out.suffix}"),
                          quantise(net, args.scale, description))
        if math.isnan(val_loss) and len(val_idx):
            val_loss = trainer.loss(val_data, val_idx)   # a resumed run with no epoch left to train
    finally:
        trainer.close()
    if bench:
        if speeds:
            mean = len(speeds) / sum(1 / speed for speed in speeds)
            print(f"training speed: {max(speeds):,.0f} pos/s best epoch, {mean:,.0f} pos/s mean over {len(speeds)} "
                  f"epochs (hidden {net.hidden}, batch {args.batch}, {args.threads} threads)")
        return 0
    description = describe(args.recipe, command, data, args.inputs, args.epochs, val_loss)
    write_net(args.out, quantise(net, args.scale, description))
    print(f"net written to {args.out}")
    return 0


def describe(recipe: Recipe, command: str, data: Records, inputs: Sequence[Path], epochs: int,
             val_loss: float) -> str:
    """The net's description: how to make it again (the recipe, then the command's flags over it)."""
    names = ", ".join(str(path) for path in inputs)
    return (f"recipe: {recipe.name} | {command} | data: {len(data)} positions ({names}) | epochs: {epochs} | "
            f"val loss: {val_loss:.6f}")


def main(argv: Sequence[str] | None = None) -> int:
    return train(sys.argv[1:] if argv is None else list(argv))


if __name__ == "__main__":
    raise SystemExit(main())
