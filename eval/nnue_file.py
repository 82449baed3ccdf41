"""The NNUE net's file format, its one definition, and the exact integer evaluation it implies.

The net is a perspective network: 768 sparse inputs seen from each side, a hidden layer of N units
per side (one shared weight matrix), SCReLU, and one output, from the output layer of the
position's bucket: B output layers (1..8), chosen by the number of pieces on the board.  A net's
feature set says whether each perspective's inputs are also mirrored left-right by its king's wing.
``read_net`` and ``write_net`` are the only code that reads or writes the file; the trainer
(``python -m tools.nnue_train``) writes it, the engine's C inference reads it.  Pure standard
library: the playing engine needs no numpy.

File layout, version 2 (every number little-endian; version 3 below)::

    offset  size  field
    0       4     magic b"KNUE"
    4       4     u32 version = 2
    8       4     u32 inputs = 768
    12      4     u32 hidden N (16 .. 1024, a multiple of 16)
    16      4     u32 activation: 1 = SCReLU (the only one defined)
    20      4     i32 QA (255; 1 .. 32767): the quantisation of the first layer, and the clamp's top
    24      4     i32 QB: the quantisation of the output weights (1 .. 32767, chosen per net)
    28      4     i32 scale (400; 1 .. 2**21): centipawns per unit of the float output
    32      4     u32 output buckets B (1 .. 8)
    36      4     u32 description length L (at most 65536)
    40      L     the description, UTF-8 (how the net was made: the training command, data, epochs)
    40+L          int16 feature_weights[768][N]   weight of feature f to hidden unit j at f*N + j
                  int16 feature_bias[N]
                  int16 output_weights[B][2N]     per bucket first the side to move's half, then the other's
                  int32 output_bias[B]
                  u32   zlib.crc32 of every byte before it

Version 1, the format of the first nets (``kestrel-1`` to ``kestrel-5``), is version 2 with one
bucket and no bucket field: the description length sits at offset 32 and the description at 36.
Version 3 is version 2 with a u32 feature set at offset 36 (0 plain, 1 mirrored by the king's wing;
below), the description length at 40 and the description at 44.  All three are read; a net is
written in the oldest version that holds it (a plain net with one bucket as version 1, byte for
byte as before, a plain net with buckets as version 2), so older engines load what they can play.

Output buckets.  A position with p pieces (kings included, 2..32) uses bucket
``(p - 2) * B // 31`` (p above 32 the last, below 2 the first): with B = 8, bucket (p - 2) // 4.
``eval/nnue_architecture.pxd`` (``nnue_output_bucket``) is the code's one definition.

Features.  Perspective p (0 White, 1 Black) sees a piece of colour c (0 White, 1 Black), type t
(pawn 0, knight 1, bishop 2, rook 3, queen 4, king 5) on square s (a1 = 0, b1 = 1 ... h8 = 63) as
feature ``(0 if c == p else 384) + 64 * t + (s if p == 0 else s ^ 56)``: own pieces first, and
Black sees the board flipped vertically, so both sides see their own pieces from their own side.
The code's one definition of the inputs and of the sizes and bounds a net may have is the header
``eval/nnue_architecture.pxd`` (the engine and the trainer's kernels compile against it); this
module reads them from its Python face, ``eval.nnue_architecture``, which also gives a position's
active features.

Feature set 1, king mirroring: a perspective whose own king stands on files e-h (after Black's
vertical flip, which keeps files) mirrors every one of its inputs left-right, ``f ^ 7`` (the low
three bits of an input are its square's file).  Each perspective decides by its own king, so a
position and its left-right mirror image have the same inputs and the same score.

Integer inference (what the tests' reference, ``tests/nnue_reference.py``, computes, and what the
C code must equal exactly):

1. Accumulators, one per perspective, int16: ``acc_p[j] = feature_bias[j] + sum of
   feature_weights[f][j]`` over the active features f of perspective p.  Sums wrap modulo 2**16
   as int16_t arithmetic does (a trained net never gets near: its weights are clipped so that
   bias + 32 features fit; see below), so an incremental update in any order gives the same values.
2. ``v = clamp(acc, 0, QA)`` for each unit of each accumulator.
3. ``stm`` is the perspective of the side to move, ``other`` the other one, ``k`` the position's
   bucket and ``w = output_weights[k]``.  In 64-bit integers::

       sum = sum_j v_stm[j]^2 * w[j] + sum_j v_other[j]^2 * w[N + j]
       raw = div(sum, QA) + output_bias[k]
       eval_cp = div(raw * scale, QA * QB)

   where ``div`` is integer division truncated toward zero, as C's ``/`` on signed integers
   (-7 / 2 == -3; not Python's ``//``, which floors).  ``eval_cp`` is the score in centipawns from
   the side to move's view.  QA, QB and scale are the header's values (the trainer writes QA 255,
   scale 400, and the largest QB that keeps every ``QA * |output_weight|`` within int16).  Each
   product ``v^2 * w`` fits in int32 (65025 * 32767 < 2**31), but ``sum`` does not (65025 * 128 * 2N
   overflows it for N >= 136), nor ``raw * scale``: use int64.

The float model the trainer trains, with W, b, w_out (B x 2N), b_out (B) floats::

    acc = b + sum of W[f] over the active features;  v = clamp(acc, 0, 1)
    out = sum_j v_stm[j]^2 w_out[k][j] + sum_j v_other[j]^2 w_out[k][N + j] + b_out[k];  cp = out * scale

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
from eval.nnue_architecture import (
    FEATURE_SETS,
    FEATURES_PLAIN,
    HIDDEN_MAX,
    HIDDEN_MIN,
    HIDDEN_STEP,
    INPUTS,
    OUTPUT_BUCKETS_MAX,
    QA_MAX,
    QB_MAX,
    SCALE_MAX,
)

MAGIC = b"KNUE"
VERSION_ONE_BUCKET = 1  # the first nets' version: one output bucket, no bucket field
VERSION_BUCKETS = 2     # a plain net with several output buckets: the bucket count added
VERSION = 3             # any net: the bucket count and the feature set
ACTIVATION_SCRELU = 1
QA = 255
QB = 64          # the output scale of weights at the clip; the trainer picks a finer one per net
SCALE = 400
# A description is a command line and a few words; the bound keeps a damaged length from
# declaring gigabytes that would be read before the checksum could refuse them.
DESCRIPTION_MAX = 1 << 16
# The trainer keeps float weights within this, so the int16 accumulators cannot overflow.
WEIGHT_CLIP = 1.98

# The fields every version shares (magic .. scale), then each version's tail: version 1 the
# description length, version 2 the bucket count and the description length, version 3 the bucket
# count, the feature set and the description length.
_HEADER = struct.Struct("<4sIIIIiii")
_TAIL_V1 = struct.Struct("<I")
_TAIL_V2 = struct.Struct("<II")
_TAIL_V3 = struct.Struct("<III")
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
    feature_weights: array[int]     # 'h', INPUTS * hidden, feature-major
    feature_bias: array[int]        # 'h', hidden
    output_weights: array[int]      # 'h', buckets * 2 * hidden: per bucket the side to move's half, then the other's
    output_biases: tuple[int, ...]  # int32, one per output bucket
    feature_set: int = FEATURES_PLAIN   # FEATURES_KING_MIRRORED: inputs mirrored by each side's king

    @property
    def buckets(self) -> int:
        """The number of output layers (1 .. 8), chosen by the position's piece count."""
        return len(self.output_biases)


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


def check_buckets(buckets: int) -> None:
    """ValueError unless the file format supports `buckets` output buckets."""
    if not 1 <= buckets <= OUTPUT_BUCKETS_MAX:
        raise ValueError(f"{buckets} output buckets are not supported: a net has 1..{OUTPUT_BUCKETS_MAX}")


def check_feature_set(feature_set: int) -> None:
    """ValueError unless the file format defines `feature_set`."""
    if not 0 <= feature_set < FEATURE_SETS:
        raise ValueError(f"feature set {feature_set} is not defined: 0 (plain) .. {FEATURE_SETS - 1}")


def _validate(params: NetParameters) -> None:
    check_hidden(params.hidden)
    check_feature_set(params.feature_set)
    if not isinstance(params.output_biases, tuple):
        raise ValueError("output_biases must be a tuple of ints, one per output bucket")
    check_buckets(params.buckets)
    for name, values, size in (("feature_weights", params.feature_weights, INPUTS * params.hidden),
                               ("feature_bias", params.feature_bias, params.hidden),
                               ("output_weights", params.output_weights, params.buckets * 2 * params.hidden)):
        if not isinstance(values, array) or values.typecode != "h":
            raise ValueError(f"{name} must be an array('h')")
        if len(values) != size:
            raise ValueError(f"{name} has {len(values)} values, expected {size} for hidden size {params.hidden} "
                             f"and {params.buckets} output buckets")
    for bias in params.output_biases:
        if not isinstance(bias, int) or not -2**31 <= bias < 2**31:
            raise ValueError(f"output bias {bias} does not fit in int32")
    check_constants(params.qa, params.qb, params.scale)
    if len(params.description.encode("utf-8")) > DESCRIPTION_MAX:
        raise ValueError(f"the description is longer than {DESCRIPTION_MAX} bytes")


def net_bytes(params: NetParameters) -> bytes:
    """The whole file of `params`, checksum included (ValueError if `params` is inconsistent), in
    the oldest version that holds it: 1 for a plain net with one output bucket, 2 for a plain net
    with several, 3 for a king-mirrored net."""
    _validate(params)
    description = params.description.encode("utf-8")
    if params.feature_set != FEATURES_PLAIN:
        version, tail = VERSION, _TAIL_V3.pack(params.buckets, params.feature_set, len(description))
    elif params.buckets == 1:
        version, tail = VERSION_ONE_BUCKET, _TAIL_V1.pack(len(description))
    else:
        version, tail = VERSION_BUCKETS, _TAIL_V2.pack(params.buckets, len(description))
    body = b"".join((
        _HEADER.pack(MAGIC, version, INPUTS, params.hidden, ACTIVATION_SCRELU, params.qa, params.qb, params.scale),
        tail,
        description,
        _int16_le(params.feature_weights),
        _int16_le(params.feature_bias),
        _int16_le(params.output_weights),
        b"".join(_INT32.pack(bias) for bias in params.output_biases),
    ))
    return body + _UINT32.pack(zlib.crc32(body))


def write_net(path: str | Path, params: NetParameters) -> None:
    """Write `params` to `path` in the format above."""
    data = net_bytes(params)
    Path(path).write_bytes(data)


HEADER_MAX = _HEADER.size + _TAIL_V3.size   # the longest header, version 3's


@dataclass(frozen=True)
class _Header:
    """What a file's header declares, checked: the fields and where the description starts."""

    hidden: int
    qa: int
    qb: int
    scale: int
    buckets: int
    feature_set: int
    description_length: int
    size: int            # the header's bytes: 36 in version 1, 40 in version 2, 44 in version 3

    @property
    def file_size(self) -> int:
        """The size of the whole file this header declares."""
        parameters = INPUTS * self.hidden + self.hidden + self.buckets * 2 * self.hidden
        return self.size + self.description_length + 2 * parameters + 4 * self.buckets + 4


def read_net(source: str | Path | bytes | bytearray | memoryview) -> NetParameters:
    """A net from a file path or from the file's bytes; ValueError naming the problem if it is not a
    valid net of version 1, 2 or 3, OSError if the file cannot be opened.

    A path must name a regular file (``eval/input_files.py``).  Its header is read and checked
    first; then exactly the bytes it declares are read, and only if the file's size is that: no
    more than the largest net's size is ever read, whatever the file holds.
    """
    if isinstance(source, (str, Path)):
        data, header = _read_net_file(source)
        return _parse(data, header, f"{source}: ")
    data = bytes(source)
    return _parse(data, _check_header(data[:HEADER_MAX], len(data), ""), "")


def _read_net_file(path: str | Path) -> tuple[bytes, _Header]:
    """The bytes of the net file at `path` and its header, read after the header and the size are found right."""
    where = f"{path}: "
    file, size = open_regular_file(path)
    with file:
        head = read_exactly(file, HEADER_MAX)
        if len(head) < min(size, HEADER_MAX):
            raise ValueError(f"{where}the file got shorter while it was read")
        header = _check_header(head, size, where)
        data = head + read_exactly(file, header.file_size - len(head))
    if len(data) != header.file_size:
        raise ValueError(f"{where}the file got shorter while it was read")
    return data, header


def _check_header(head: bytes, size: int, where: str) -> _Header:
    """The header of a file whose first bytes are `head` (up to HEADER_MAX of them), if the file's
    `size` is what it declares; ValueError naming the first problem of the header or the size."""
    if size < len(MAGIC):
        raise ValueError(f"{where}not a Kestrel NNUE net file: {size} bytes")
    if head[:4] != MAGIC:
        raise ValueError(f"{where}bad magic {head[:4]!r} (expected {MAGIC!r}): not a Kestrel NNUE net file")
    if size < _HEADER.size + _TAIL_V1.size:
        raise ValueError(f"{where}truncated: {size} bytes, shorter than the {_HEADER.size + _TAIL_V1.size}-byte "
                         f"header")
    _, version, inputs, hidden, activation, qa, qb, scale = _HEADER.unpack_from(head, 0)
    if version not in (VERSION_ONE_BUCKET, VERSION_BUCKETS, VERSION):
        raise ValueError(f"{where}unsupported version {version} (this reader knows versions "
                         f"{VERSION_ONE_BUCKET} to {VERSION})")
    feature_set = FEATURES_PLAIN
    if version == VERSION_ONE_BUCKET:
        buckets, header_size = 1, _HEADER.size + _TAIL_V1.size
        (length,) = _TAIL_V1.unpack_from(head, _HEADER.size)
    else:
        tail = _TAIL_V2 if version == VERSION_BUCKETS else _TAIL_V3
        header_size = _HEADER.size + tail.size
        if size < header_size:
            raise ValueError(f"{where}truncated: {size} bytes, shorter than the {header_size}-byte header")
        if version == VERSION_BUCKETS:
            buckets, length = _TAIL_V2.unpack_from(head, _HEADER.size)
        else:
            buckets, feature_set, length = _TAIL_V3.unpack_from(head, _HEADER.size)
    if inputs != INPUTS:
        raise ValueError(f"{where}wrong input count {inputs}, expected {INPUTS}")
    try:
        check_hidden(hidden)
        check_constants(qa, qb, scale)
        check_buckets(buckets)
        check_feature_set(feature_set)
    except ValueError as error:
        raise ValueError(f"{where}{error}") from None
    if activation != ACTIVATION_SCRELU:
        raise ValueError(f"{where}unknown activation {activation} (1 = SCReLU is the only one defined)")
    if length > DESCRIPTION_MAX:
        raise ValueError(f"{where}the header declares a description of {length} bytes, more than the "
                         f"{DESCRIPTION_MAX} allowed: the file is damaged")
    header = _Header(hidden, qa, qb, scale, buckets, feature_set, length, header_size)
    expected = header.file_size
    if size < expected:
        raise ValueError(f"{where}truncated: {size} bytes, expected {expected} for hidden size {hidden} "
                         f"and {buckets} output buckets")
    if size > expected:
        raise ValueError(f"{where}{size - expected} trailing bytes after the checksum")
    return header


def _parse(data: bytes, header: _Header, where: str) -> NetParameters:
    """The net in `data`, whose header `_check_header` has found right: checksum, then fields."""
    expected = len(data)
    hidden, buckets = header.hidden, header.buckets
    (stored,) = _UINT32.unpack_from(data, expected - 4)
    computed = zlib.crc32(memoryview(data)[:expected - 4])
    if stored != computed:
        raise ValueError(f"{where}checksum mismatch (stored {stored:#010x}, computed {computed:#010x}): "
                         f"the file is damaged")
    offset = header.size
    try:
        description = data[offset:offset + header.description_length].decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{where}the description is not UTF-8") from None
    offset += header.description_length
    feature_weights = _int16_from(data, offset, INPUTS * hidden)
    offset += 2 * INPUTS * hidden
    feature_bias = _int16_from(data, offset, hidden)
    offset += 2 * hidden
    output_weights = _int16_from(data, offset, buckets * 2 * hidden)
    offset += buckets * 4 * hidden
    output_biases = tuple(_INT32.unpack_from(data, offset + 4 * k)[0] for k in range(buckets))
    return NetParameters(hidden, header.qa, header.qb, header.scale, description, feature_weights, feature_bias,
                         output_weights, output_biases, header.feature_set)
