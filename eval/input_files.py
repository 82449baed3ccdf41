"""Files the engine is told to read (a net, a book): regular files only, looked at before any byte is read.

A GUI's option box takes any path.  A FIFO or ``/dev/stdin`` blocks the reader until someone writes to it,
``/dev/zero`` never ends, a directory is no file; each would hang or swamp the thread that answers
``isready``, ``stop`` and ``quit``.  So a path is first ``stat``-ed, and only a regular file is opened.
The file is opened without blocking and checked again through its descriptor, so that a path swapped
for a FIFO between the two looks is refused as well, never waited on.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def kind_of(mode: int) -> str:
    """What a file of `mode` is, in words, for a message."""
    for test, words in _KINDS:
        if test(mode):
            return words
    return "not a regular file"


def _check_regular(path: str | Path, mode: int) -> None:
    if not stat.S_ISREG(mode):
        raise ValueError(f"{path}: not a regular file but {kind_of(mode)}; give the path of a file")


def regular_file_size(path: str | Path) -> int:
    """The size in bytes of the regular file at `path`, which is not opened; OSError if it cannot be
    looked at (missing, no permission), ValueError if it is a FIFO, a device, a directory or a socket."""
    info = os.stat(path)
    _check_regular(path, info.st_mode)
    return info.st_size


def open_regular_file(path: str | Path) -> tuple[BinaryIO, int]:
    """The regular file at `path` open for reading (unbuffered: reads are exact) and its size;
    the errors of `regular_file_size`.  The caller closes it."""
    regular_file_size(path)
    # O_NONBLOCK: should the path have become a FIFO since the stat, opening it must not wait for a
    # writer.  On a regular file the flag changes nothing.
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    descriptor = os.open(path, flags)
    try:
        info = os.fstat(descriptor)
        _check_regular(path, info.st_mode)
        return os.fdopen(descriptor, "rb", buffering=0), info.st_size
    except BaseException:
        os.close(descriptor)
        raise


def read_exactly(file: BinaryIO, count: int) -> bytes:
    """`count` bytes from `file`, fewer only at its end (a raw file may return short reads)."""
    parts: list[bytes] = []
    left = count
    while left > 0:
        part = file.read(left)
        if not part:
            break
        parts.append(part)
        left -= len(part)
    return b"".join(parts)
