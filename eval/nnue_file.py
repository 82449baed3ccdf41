"""The NNUE net's file format, its one definition, and the exact integer evaluation it implies.

The net is a perspective network: 768 sparse inputs seen from each side, a hidden layer of N units
per side (one shared weight matrix), SCReLU, and one output.  ``read_net`` and ``write_net`` are the
only code that reads or writes the file; the trainer (``python -m tools.nnue_train``) writes it, the
engine's C inference reads it.  Pure standard library: the playing engine needs no numpy.

File layout (every number little-endian)::

    offset  size  field
    0       4     magic b"KNUE"
    4       4     u32 version = 1
    8       4     u32 inputs = 768
    12      4     u32 hidden N (16 .. 1024, a multiple of 16)
    16      4     u32 activation: 1 = SCReLU (the only one defined)
    20      4     i32 QA (255; 1 .. 32767): the quantisation of the first layer, and the clamp's top
    24      4     i32 QB: the quantisation of the output weights (64 .. 32767, chosen per net)
    28      4     i32 scale (400; 1 .. 2**21): centipawns per unit of the float output
    32      4     u32 description length L (at most 65536)
    36      L     the description, UTF-8 (how the net was made: the training command, data, epochs)
    36+L          int16 feature_weights[768][N]   weight of feature f to hidden unit j at f*N + j
                  int16 feature_bias[N]
                  int16 output_weights[2N]        first the side to move's half, then the other side's
                  int32 output_bias
                  u32   zlib.crc32 of every byte before it

Features.  Perspective p (0 White, 1 Black) sees a piece of colour c (0 White, 1 Black), type t
(pawn 0, knight 1, bishop 2, rook 3, queen 4, king 5) on square s (a1 = 0, b1 = 1 ... h8 = 63) as
feature ``(0 if c == p else 384) + 64 * t + (s if p == 0 else s ^ 56)``: own pieces first, and
Black sees the board flipped vertically, so both sides see their own pieces from their own side.
The code's one definition of the inputs and of the sizes and bounds a net may have is the header
``eval/nnue_architecture.pxd`` (the engine and the trainer's kernels compile against it); this
module reads them from its Python face, ``eval.nnue_architecture``, which also gives a position's
active features.

Integer inference (what the tests' reference, ``tests/nnue_reference.py``, computes, and what the
C code must equal exactly):

1. Accumulators, one per perspective, int16: ``acc_p[j] = feature_bias[j] + sum of
   feature_weights[f][j]`` over the active features f of perspective p.  Sums wrap modulo 2**16
   as int16_t arithmetic does (a trained net never gets near: its weights are clipped so that
   bias + 32 features fit; see below), so an incremental update in any order gives the same values.
2. ``v = clamp(acc, 0, QA)`` for each unit of each accumulator.
3. ``stm`` is the perspective of the side to move, ``other`` the other one.  In 64-bit integers::

       sum = sum_j v_stm[j]^2 * output_weights[j] + sum_j v_other[j]^2 * output_weights[N + j]
       raw = div(sum, QA) + output_bias
       eval_cp = div(raw * scale, QA * QB)

   where ``div`` is integer division truncated toward zero, as C's ``/`` on signed integers
   (-7 / 2 == -3; not Python's ``//``, which floors).  ``eval_cp`` is the score in centipawns from
   the side to move's view.  QA, QB and scale are the header's values (the trainer writes QA 255,
   scale 400, and the largest QB that keeps every ``QA * |output_weight|`` within int16).  Each
   product ``v^2 * w`` fits in int32 (65025 * 32767 < 2**31), but ``sum`` does not (65025 * 128 * 2N
   overflows it for N >= 136), nor ``raw * scale``: use int64.

The float model the trainer trains, with W, b, w_out, b_out floats::

    acc = b + sum of W[f] over the active features;  v = clamp(acc, 0, 1)
    out = sum_j v_stm[j]^2 w_out[j] + sum_j v_other[j]^2 w_out[N + j] + b_out;  cp = out * scale

Quantisation, rounding to nearest (ties to even, as ``numpy.rint``): ``W_q = round(W * QA)``,
``b_q = round(b * QA)``, ``w_out_q = round(w_out * QB)``, ``b_out_q = round(b_out * QA * QB)``.
Then v_q = v * QA, ``sum / QA`` is ``QA * QB`` times the float sum, and ``raw`` is
``out * QA * QB``: ``eval_cp`` is the float ``cp`` up to rounding.  The trainer clips W, b and w_out
to [-1.98, 1.98] (``WEIGHT_CLIP``), so |W_q| <= 505 and one accumulator (a bias and at most 32
features) stays within 33 * 505 = 16665, inside int16.  The rounding itself moves the score, mostly
through QB's steps in the output weights: each active unit can carry up to 1/(2 QB) of error into the
output, so the trainer takes the finest QB whose int16 products ``v * w_q`` (v <= QA) still fit, which the
engine's fast output path needs.  For weights at the clip that is 64; trained nets' output weights are
far smaller, so their QB is finer and their scores closer to the float model's (tools/nnue_train.py,
``output_scale``; docs/nnue.md has the shipped nets' figures).
"""

from __future__ import annotations

import struct
import sys
import zlib
from array import array
from dataclasses import dataclass
from pathlib import Path

from eval.input_files import open_regular_file, read_exactly
from eval.nnue_architecture import HIDDEN_MAX, HIDDEN_MIN, HIDDEN_STEP, INPUTS, QA_MAX, QB_MAX, SCALE_MAX

MAGIC = b"KNUE"
VERSION = 1
ACTIVATION_SCRELU = 1
QA = 255
QB = 64          # the output scale of weights at the clip; the trainer picks a finer one per net
SCALE = 400
# A description is a command line and a few words; the bound keeps a damaged length from
# declaring gigabytes that would be read before the checksum could refuse them.
DESCRIPTION_MAX = 1 << 16
# The trainer keeps float weights within this, so the int16 accumulators cannot overflow.
WEIGHT_CLIP = 1.98

_HEADER = struct.Struct("<4sIIIIiiiI")
_INT32 = struct.Struct("<i")
_UINT32 = struct.Struct("<I")


@dataclass(frozen=True)
class NetParameters:
    """A quantised net: its sizes, quantisation constants, description and int16/int32 parameters."""

    hidden: int
    qa: int
    qb: int
    scale: int
    description: str
    feature_weights: array[int]  # 'h', INPUTS * hidden, feature-major
    feature_bias: array[int]     # 'h', hidden
    output_weights: array[int]   # 'h', 2 * hidden: side to move's half, then the other's
    output_bias: int           # int32


def check_hidden(hidden: int) -> None:
    """ValueError unless the file format supports `hidden` units per perspective."""
    if not HIDDEN_MIN <= hidden <= HIDDEN_MAX or hidden % HIDDEN_STEP:
        raise ValueError(f"hidden size {hidden} is not supported: it must be {HIDDEN_MIN}..{HIDDEN_MAX} "
                         f"and a multiple of {HIDDEN_STEP}")


def check_constants(qa: int, qb: int, scale: int) -> None:
    """ValueError unless the engine accepts these quantisation constants (the bounds of the C ``Network``)."""
    if not (1 <= qa <= QA_MAX and 1 <= qb <= QB_MAX and 1 <= scale <= SCALE_MAX):
        raise ValueError(f"QA must be 1..{QA_MAX}, QB 1..{QB_MAX} and scale 1..{SCALE_MAX}, "
                         f"not {qa}, {qb}, {scale}")


def _int16_le(values: array[int]) -> bytes:
    """The little-endian bytes of an int16 array, on any host."""
    if sys.byteorder == "little":
        return values.tobytes()
    swapped = array("h", values)
    swapped.byteswap()
    return swapped.tobytes()


def _int16_from(data: bytes | memoryview, offset: int, count: int) -> array[int]:
    values = array("h")
    values.frombytes(data[offset:offset + 2 * count])
    if sys.byteorder != "little":
        values.byteswap()
    return values


def _validate(params: NetParameters) -> None:
    check_hidden(params.hidden)
    for name, values, size in (("feature_weights", params.feature_weights, INPUTS * params.hidden),
                               ("feature_bias", params.feature_bias, params.hidden),
                               ("output_weights", params.output_weights, 2 * params.hidden)):
        if not isinstance(values, array) or values.typecode != "h":
            raise ValueError(f"{name} must be an array('h')")
        if len(values) != size:
            raise ValueError(f"{name} has {len(values)} values, expected {size} for hidden size {params.hidden}")
    if not -2**31 <= params.output_bias < 2**31:
        raise ValueError(f"output_bias {params.output_bias} does not fit in int32")
    check_constants(params.qa, params.qb, params.scale)
    if len(params.description.encode("utf-8")) > DESCRIPTION_MAX:
        raise ValueError(f"the description is longer than {DESCRIPTION_MAX} bytes")


def net_bytes(params: NetParameters) -> bytes:
    """The whole file of `params`, checksum included (ValueError if `params` is inconsistent)."""
    _validate(params)
    description = params.description.encode("utf-8")
    body = b"".join((
        _HEADER.pack(MAGIC, VERSION, INPUTS, params.hidden, ACTIVATION_SCRELU, params.qa, params.qb, params.scale,
                     len(description)),
        description,
        _int16_le(params.feature_weights),
        _int16_le(params.feature_bias),
        _int16_le(params.output_weights),
        _INT32.pack(params.output_bias),
    ))
    return body + _UINT32.pack(zlib.crc32(body))


def write_net(path: str | Path, params: NetParameters) -> None:
    """Write `params` to `path` in the format above."""
    data = net_bytes(params)
    Path(path).write_bytes(data)


def read_net(source: str | Path | bytes | bytearray | memoryview) -> NetParameters:
    """A net from a file path or from the file's bytes; ValueError naming the problem if it is not a
    valid version-1 net, OSError if the file cannot be opened.

    A path must name a regular file (``eval/input_files.py``).  Its header is read and checked
    first; then exactly the bytes it declares are read, and only if the file's size is that: no
    more than the largest net's size is ever read, whatever the file holds.
    """
    if isinstance(source, (str, Path)):
        return _parse(_read_net_file(source), f"{source}: ")
    data = bytes(source)
    _check_size(data[:_HEADER.size], len(data), "")
    return _parse(data, "")


def _read_net_file(path: str | Path) -> bytes:
    """The bytes of the net file at `path`, read after its header and its size are found right."""
    where = f"{path}: "
    file, size = open_regular_file(path)
    with file:
        head = read_exactly(file, _HEADER.size)
        if len(head) < min(size, _HEADER.size):
            raise ValueError(f"{where}the file got shorter while it was read")
        expected = _check_size(head, size, where)
        data = head + read_exactly(file, expected - len(head))
    if len(data) != expected:
        raise ValueError(f"{where}the file got shorter while it was read")
    return data


def _check_size(head: bytes, size: int, where: str) -> int:
    """The file size that the header `head` (a file's first bytes) declares, if the file's `size` is
    that; ValueError naming the first problem of the header or the size."""
    if size < len(MAGIC):
        raise ValueError(f"{where}not a Kestrel NNUE net file: {size} bytes")
    if head[:4] != MAGIC:
        raise ValueError(f"{where}bad magic {head[:4]!r} (expected {MAGIC!r}): not a Kestrel NNUE net file")
    if size < _HEADER.size:
        raise ValueError(f"{where}truncated: {size} bytes, shorter than the {_HEADER.size}-byte header")
    _, version, inputs, hidden, activation, qa, qb, scale, length = _HEADER.unpack_from(head, 0)
    if version != VERSION:
        raise ValueError(f"{where}unsupported version {version} (this reader knows version {VERSION})")
    if inputs != INPUTS:
        raise ValueError(f"{where}wrong input count {inputs}, expected {INPUTS}")
    try:
        check_hidden(hidden)
        check_constants(qa, qb, scale)
    except ValueError as error:
        raise ValueError(f"{where}{error}") from None
    if activation != ACTIVATION_SCRELU:
        raise ValueError(f"{where}unknown activation {activation} (1 = SCReLU is the only one defined)")
    if length > DESCRIPTION_MAX:
        raise ValueError(f"{where}the header declares a description of {length} bytes, more than the "
                         f"{DESCRIPTION_MAX} allowed: the file is damaged")
    expected: int = _HEADER.size + length + 2 * (INPUTS * hidden + hidden + 2 * hidden) + 4 + 4
    if size < expected:
        raise ValueError(f"{where}truncated: {size} bytes, expected {expected} for hidden size {hidden}")
    if size > expected:
        raise ValueError(f"{where}{size - expected} trailing bytes after the checksum")
    return expected


def _parse(data: bytes, where: str) -> NetParameters:
    """The net in `data`, whose header and size `_check_size` has found right: checksum, then fields."""
    expected = len(data)
    _, _, _, hidden, _, qa, qb, scale, length = _HEADER.unpack_from(data, 0)
    (stored,) = _UINT32.unpack_from(data, expected - 4)
    computed = zlib.crc32(memoryview(data)[:expected - 4])
    if stored != computed:
        raise ValueError(f"{where}checksum mismatch (stored {stored:#010x}, computed {computed:#010x}): "
                         f"the file is damaged")
    offset = _HEADER.size
    try:
        description = data[offset:offset + length].decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{where}the description is not UTF-8") from None
    offset += length
    feature_weights = _int16_from(data, offset, INPUTS * hidden)
    offset += 2 * INPUTS * hidden
    feature_bias = _int16_from(data, offset, hidden)
    offset += 2 * hidden
    output_weights = _int16_from(data, offset, 2 * hidden)
    offset += 4 * hidden
    (output_bias,) = _INT32.unpack_from(data, offset)
    return NetParameters(hidden, qa, qb, scale, description, feature_weights, feature_bias, output_weights,
                         output_bias)

