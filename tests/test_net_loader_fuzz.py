"""The net loader against hostile input: random, truncated and bit-flipped files, header fields out of
range, and paths that are no file at all (FIFOs, directories, devices).  Whatever it is given,
`read_net` returns a net the C `Network` accepts or raises ValueError (OSError for a path it cannot
open), reads no more than the header declares, and never waits on a file.  Runs in seconds.
"""

from __future__ import annotations

import os
import random
import socket
import stat
import struct
import threading
import zlib
from array import array
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import eval.nnue_file as nnue_file
from eval.input_files import open_regular_file, read_exactly, regular_file_size
from eval.networks import network_of
from eval.nnue_architecture import INPUTS, QA_MAX, QB_MAX, SCALE_MAX
from eval.nnue_file import DESCRIPTION_MAX, NetParameters, net_bytes, read_net

# The versions' headers (eval/nnue_file.py): version 2 adds the output bucket count, version 3 the
# feature set.
HEADERS = {1: (struct.Struct("<4sIIIIiiiI"),
               ("magic", "version", "inputs", "hidden", "activation", "qa", "qb", "scale", "length")),
           2: (struct.Struct("<4sIIIIiiiII"),
               ("magic", "version", "inputs", "hidden", "activation", "qa", "qb", "scale", "buckets", "length")),
           3: (struct.Struct("<4sIIIIiiiIII"),
               ("magic", "version", "inputs", "hidden", "activation", "qa", "qb", "scale", "buckets", "feature_set",
                "length"))}
# (output buckets, feature set): a version-1 net, a version-2 one and a version-3 one.
KINDS = [(1, 0), (8, 0), (1, 1)]
# A hung reader fails the test instead of hanging the run; far above the milliseconds a refusal takes.
HANG_BOUND_S = 20.0


def small_net(seed: int = 1, buckets: int = 1, feature_set: int = 0) -> bytes:
    rng = random.Random(seed)
    hidden = 16
    return net_bytes(NetParameters(
        hidden=hidden, qa=255, qb=64, scale=400, description="fuzz",
        feature_weights=array("h", (rng.randint(-300, 300) for _ in range(INPUTS * hidden))),
        feature_bias=array("h", (rng.randint(-100, 100) for _ in range(hidden))),
        output_weights=array("h", (rng.randint(-120, 120) for _ in range(buckets * 2 * hidden))),
        output_biases=tuple(rng.randint(-9999, 9999) for _ in range(buckets)), feature_set=feature_set))


def header_of(data: bytes) -> tuple[struct.Struct, tuple[str, ...]]:
    """The header layout and field names of a good net's bytes (by its version field)."""
    return HEADERS[struct.unpack_from("<I", data, 4)[0]]


def with_fields(data: bytes, **fields: Any) -> bytes:
    """`data` with header fields replaced and its checksum made right again."""
    header, names = header_of(data)
    values = list(header.unpack_from(data))
    for name, value in fields.items():
        values[names.index(name)] = value
    body = header.pack(*values) + data[header.size:-4]
    return body + struct.pack("<I", zlib.crc32(body))


def outcome(source: Any) -> NetParameters | ValueError:
    """What `read_net` makes of `source`: a net, or the ValueError it raised (any other exception fails)."""
    try:
        return read_net(source)
    except ValueError as exc:
        return exc


def finishes(call: Callable[[], Any]) -> Any:
    """`call()`'s result or exception, on a thread; fails if it is still running after HANG_BOUND_S."""
    box: list[Any] = []

    def run() -> None:
        try:
            box.append(call())
        except BaseException as exc:
            box.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(HANG_BOUND_S)
    assert box, f"still reading after {HANG_BOUND_S} s: it waits on the file"
    return box[0]


def test_random_bytes_are_refused(tmp_path: Path) -> None:
    rng = random.Random(45)
    good = small_net()
    path = tmp_path / "random.nnue"
    for trial in range(300):
        size = rng.choice((0, 1, 3, 4, 35, 36, 37, rng.randint(0, 200), rng.randint(0, len(good) + 100)))
        data = bytes(rng.getrandbits(8) for _ in range(size))
        if trial % 2:
            data = b"KNUE" + data[4:]          # past the magic, into the header checks
        path.write_bytes(data)
        for source in (data, path):
            assert isinstance(outcome(source), ValueError), (trial, data[:40])


@pytest.mark.parametrize(("buckets", "feature_set"), KINDS)
def test_every_truncation_and_every_extension_is_refused(tmp_path: Path, buckets: int, feature_set: int) -> None:
    good = small_net(buckets=buckets, feature_set=feature_set)
    header = header_of(good)[0]
    path = tmp_path / "cut.nnue"
    rng = random.Random(2)
    cuts = sorted({*range(0, 80), *rng.sample(range(80, len(good)), 200), len(good) - 1})
    for cut in cuts:
        path.write_bytes(good[:cut])
        result = outcome(path)
        assert isinstance(result, ValueError), cut
        assert ("truncated" in str(result)) if cut >= header.size else ("not a Kestrel NNUE net" in str(result)
                                                                        or "truncated" in str(result)), cut
    for extra in (1, 2, 1000):
        path.write_bytes(good + bytes(extra))
        assert f"{extra} trailing bytes" in str(outcome(path))


@pytest.mark.parametrize(("buckets", "feature_set"), KINDS)
def test_every_single_bit_flip_is_refused(buckets: int, feature_set: int) -> None:
    """CRC-32 catches every one-bit error; a flip in the header is caught by its own check first."""
    good = small_net(buckets=buckets, feature_set=feature_set)
    rng = random.Random(3)
    positions = [*range(header_of(good)[0].size * 8 + 64), *rng.sample(range(len(good) * 8), 2000),
                 len(good) * 8 - 1]
    for bit in positions:
        damaged = bytearray(good)
        damaged[bit // 8] ^= 1 << (bit % 8)
        assert isinstance(outcome(bytes(damaged)), ValueError), bit


@pytest.mark.parametrize(("buckets", "feature_set"), KINDS)
def test_what_read_net_accepts_the_engine_accepts(buckets: int, feature_set: int) -> None:
    """Header constants at and past each bound of the C `Network`, with the checksum made right: the
    reader refuses exactly what the engine would, so a net it returns always loads."""
    good = small_net(buckets=buckets, feature_set=feature_set)
    names = header_of(good)[1]
    interesting = (-2**31, -1, 0, 1, 255, 32767, 32768, SCALE_MAX, SCALE_MAX + 1, 2**31 - 1)
    accepted = 0
    for name, top in (("qa", QA_MAX), ("qb", QB_MAX), ("scale", SCALE_MAX)):
        for value in interesting:
            result = outcome(with_fields(good, **{name: value}))
            if 1 <= value <= top:
                assert isinstance(result, NetParameters), (name, value, result)
                network_of(result)           # the C Network takes it
                accepted += 1
            else:
                assert isinstance(result, ValueError) and "must be 1.." in str(result), (name, value)
    rng = random.Random(4)
    for _ in range(300):
        name = rng.choice(names[1:])
        value = rng.getrandbits(32)
        if name in ("qa", "qb", "scale"):
            value -= 2**31
        result = outcome(with_fields(good, **{name: value}))
        if isinstance(result, NetParameters):
            network_of(result)
            accepted += 1
    assert accepted > 10


@pytest.mark.parametrize(("buckets", "feature_set"), KINDS)
def test_a_huge_declared_or_real_size_is_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  buckets: int, feature_set: int) -> None:
    """A 1 GB file (sparse: no disk used) is refused after its header (the reader takes the longer
    header's 44 bytes at once), whatever it holds."""
    read: list[int] = []

    def counting(file: Any, count: int) -> bytes:
        data = read_exactly(file, count)
        read.append(len(data))
        return data

    monkeypatch.setattr(nnue_file, "read_exactly", counting)
    good = small_net(buckets=buckets, feature_set=feature_set)
    size = header_of(good)[0].size
    cases = {
        "wrong-magic": (b"\x7fELF" + bytes(32), "bad magic"),
        "right-header": (good[:size], "trailing bytes"),
        "long-description": (with_fields(good, length=DESCRIPTION_MAX + 1)[:size], "description"),
        "hidden-2^31": (with_fields(good, hidden=2**31)[:size], "hidden size"),
    }
    if buckets > 1:
        cases["buckets-2^31"] = (with_fields(good, buckets=2**31)[:size], "output buckets")
    if feature_set:
        cases["feature-set-2^31"] = (with_fields(good, feature_set=2**31)[:size], "feature set")
    for name, (head, reason) in cases.items():
        path = tmp_path / f"{name}.nnue"
        with path.open("wb") as file:
            file.write(head)
            file.truncate(1 << 30)
        read.clear()
        assert reason in str(outcome(path)), name
        assert sum(read) <= nnue_file.HEADER_MAX, (name, read)
        path.unlink()


def special_paths(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    """Paths that are no regular file, and the kind the refusal names."""
    fifo = tmp_path / "net.fifo"
    os.mkfifo(fifo)
    folder = tmp_path / "folder.nnue"
    folder.mkdir()
    link = tmp_path / "link-to-fifo.nnue"
    link.symlink_to(fifo)
    paths = {"fifo": (fifo, "FIFO"), "directory": (folder, "directory"), "symlink to a FIFO": (link, "FIFO"),
             "/dev/zero": (Path("/dev/zero"), "character device"), "/dev/null": (Path("/dev/null"), "character device")}
    return paths


def test_fifos_directories_and_devices_are_refused_without_waiting(tmp_path: Path) -> None:
    for name, (path, kind) in special_paths(tmp_path).items():
        for read in (read_net, regular_file_size, open_regular_file):
            result = finishes(lambda: read(path))      # noqa: B023 (called at once)
            assert isinstance(result, ValueError), (name, read, result)
            assert "not a regular file" in str(result) and kind in str(result), (name, result)


def test_a_socket_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.sock"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        assert stat.S_ISSOCK(os.stat(path).st_mode)
        result = finishes(lambda: read_net(path))
        assert isinstance(result, ValueError) and "socket" in str(result)


def test_a_missing_file_is_an_os_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_net(tmp_path / "absent.nnue")


def test_a_good_net_still_loads_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "good.nnue"
    path.write_bytes(small_net(9))
    params = read_net(path)
    assert params == read_net(small_net(9)) and params.description == "fuzz"
    assert network_of(params).hidden == 16
