"""Argument checks shared by the lab's commands: argparse ``type=`` callables and a one-line parser.

Every tool checks its arguments and the files it is told to read or write before it starts work, so
that a typo costs a second, not an epoch.  A number is checked against the range the work can use;
a file to read must be a regular file (a FIFO or a device would block or never end); a file to
write must be creatable (its folder exists and is writable, and it is not a folder itself).

A failure is one line on stderr, ``<prog>: argument --x: what is wrong; what to do``, and exit
status 2, as argparse does, without argparse's usage block (``--help`` shows it).  ``parse`` gives
``None`` instead of exiting, so that a tool's ``main()`` returns its status to the caller.
"""

from __future__ import annotations

import argparse
import math
import os
import shlex
import stat
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

USAGE_ERROR = 2


class ToolParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line: the tool, the argument, the problem, the remedy."""

    def error(self, message: str) -> NoReturn:
        self.exit(USAGE_ERROR, f"{self.prog}: {message} (see --help)\n")


def parse(parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> argparse.Namespace | None:
    """The parsed arguments, or None once the error is on stderr; ``--help`` still exits."""
    try:
        return parser.parse_args(argv)
    except SystemExit as stop:
        if stop.code in (0, None):
            raise
        return None


def fail(prog: str, message: str) -> int:
    """Report a problem found after parsing (one line on stderr) and give the usage-error status."""
    print(f"{prog}: {message}", file=sys.stderr)
    return USAGE_ERROR


def _named(name: str, check: Callable[[str], object]) -> None:
    # argparse names the type in its own messages ("invalid positive_int value").
    check.__name__ = name


def int_range(low: int, high: int | None = None) -> Callable[[str], int]:
    """A whole number in low..high (no upper bound when `high` is None)."""
    span = f"from {low} to {high}" if high is not None else f"of {low} or more"

    def check(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number; give one {span}") from None
        if value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"{value} is out of range; give a whole number {span}")
        return value

    _named("int_range", check)
    return check


positive_int = int_range(1)
non_negative_int = int_range(0)


def finite_float(low: float | None = None, high: float | None = None, *, low_open: bool = False,
                 high_open: bool = False) -> Callable[[str], float]:
    """A finite number within [low, high]; an open end (``low_open``) excludes that bound."""
    bounds = [f"{'above' if low_open else 'at least'} {low:g}"] if low is not None else []
    bounds += [f"{'below' if high_open else 'at most'} {high:g}"] if high is not None else []
    span = "".join(f" {bound}" if i == 0 else f" and {bound}" for i, bound in enumerate(bounds))

    def check(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number; give one{span}") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"{text} is not a finite number; give a finite number{span}")
        if low is not None and (value < low or (low_open and value == low)) or \
                high is not None and (value > high or (high_open and value == high)):
            raise argparse.ArgumentTypeError(f"{value:g} is out of range; give a number{span}")
        return value

    _named("finite_float", check)
    return check


def shell_words(text: str) -> list[str]:
    """Words quoted as a shell would split them (`-draw movenumber=40 "name=a b"`)."""
    try:
        return shlex.split(text)
    except ValueError as problem:
        raise argparse.ArgumentTypeError(f"{text!r}: {problem}; quote it as a shell would") from None


_named("shell_words", shell_words)


def _stat(path: Path) -> os.stat_result | None:
    """The file's status (links followed), None when nothing is there."""
    try:
        return path.stat()
    except (FileNotFoundError, NotADirectoryError):    # a/b where a is a file: b is not there either
        return None
    except OSError as error:
        raise argparse.ArgumentTypeError(f"{path}: {error.strerror or error}; check the path") from None


def readable_file(text: str) -> Path:
    """An existing regular file that can be read.  Not opened: opening a FIFO would block."""
    path = Path(text)
    info = _stat(path)
    if info is None:
        raise argparse.ArgumentTypeError(f"{text}: no such file; check the path")
    if stat.S_ISDIR(info.st_mode):
        raise argparse.ArgumentTypeError(f"{text} is a folder; give a file")
    if not stat.S_ISREG(info.st_mode):
        raise argparse.ArgumentTypeError(f"{text} is not a regular file (a pipe, socket or device); "
                                         "give a file on disk")
    if not os.access(path, os.R_OK):
        raise argparse.ArgumentTypeError(f"{text}: permission denied; give a file you can read")
    return path


def _writable_folder(folder: Path, wanted: str) -> None:
    info = _stat(folder)
    if info is None:
        raise argparse.ArgumentTypeError(f"cannot create {wanted}: the folder {folder} does not exist; "
                                         "create it or choose another path")
    if not stat.S_ISDIR(info.st_mode):
        raise argparse.ArgumentTypeError(f"cannot create {wanted}: {folder} is not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise argparse.ArgumentTypeError(f"cannot create {wanted}: the folder {folder} is not writable; "
                                         "choose another path")


def writable_output(text: str) -> Path:
    """A file that can be written: a writable regular file, or a new name in a writable folder."""
    if not text:
        raise argparse.ArgumentTypeError("an empty path; give a file name")
    path = Path(text)
    info = _stat(path)
    if info is not None:
        if stat.S_ISDIR(info.st_mode):
            raise argparse.ArgumentTypeError(f"{text} is a folder; give a file name")
        if not stat.S_ISREG(info.st_mode):
            raise argparse.ArgumentTypeError(f"{text} exists and is not a regular file; give another name")
        if not os.access(path, os.W_OK):
            raise argparse.ArgumentTypeError(f"{text} is not writable; give another name")
        return path
    _writable_folder(path.parent, text)
    return path


def creatable_folder(text: str) -> Path:
    """A writable folder, or one that ``mkdir(parents=True)`` can make: its nearest existing
    ancestor is a writable folder."""
    if not text:
        raise argparse.ArgumentTypeError("an empty path; give a folder name")
    path = Path(text)
    info = _stat(path)
    if info is not None:
        if not stat.S_ISDIR(info.st_mode):
            raise argparse.ArgumentTypeError(f"{text} exists and is not a folder; give a folder")
        if not os.access(path, os.W_OK | os.X_OK):
            raise argparse.ArgumentTypeError(f"the folder {text} is not writable; choose another")
        return path
    ancestor = path.absolute().parent
    while _stat(ancestor) is None and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    _writable_folder(ancestor, text)
    return path
