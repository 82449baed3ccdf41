"""Lines to the GUI: whole, one writer at a time, flushed at once; and `info` formatting."""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import BinaryIO

from search.info import CurrentMove, Info, InfoString


class Output:
    """Writes complete lines to a byte stream.

    The search thread's `info` and `bestmove` lines and the main thread's `readyok` share
    the stream; the lock keeps a line from being cut into by another. A closed stream (the
    GUI went away) makes further writes no-ops instead of errors in whichever thread wrote.
    """

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._lock = threading.Lock()
        self.closed = False

    def line(self, text: str) -> None:
        data = (text + "\n").encode("utf-8", "replace")
        with self._lock:
            if self.closed:
                return
            try:
                self._stream.write(data)
                self._stream.flush()
            except (OSError, ValueError):
                self.closed = True

    def lines(self, texts: Iterable[str]) -> None:
        for text in texts:
            self.line(text)

    def info_string(self, text: str) -> None:
        """`info string` lines; a line break in `text` would end the info, so each part gets its own."""
        for part in str(text).splitlines() or [""]:
            self.line("info string " + part)


def format_info(info: Info) -> str:
    """One UCI `info` line from a searcher's record, fields in the order the protocol lists them."""
    if isinstance(info, InfoString):
        return "info string " + " ".join(info.text.split())
    if isinstance(info, CurrentMove):
        return f"info depth {info.depth} currmove {info.move} currmovenumber {info.number}"
    words = ["info", "depth", str(info.depth), "seldepth", str(info.seldepth), "multipv", str(info.multipv),
             "score", info.score[0], str(info.score[1])]
    if info.bound is not None:
        words.append(info.bound)
    if info.wdl is not None:
        words += ["wdl", *map(str, info.wdl)]
    words += ["nodes", str(info.nodes), "nps", str(info.nps), "hashfull", str(info.hashfull)]
    if info.tbhits is not None:
        words += ["tbhits", str(info.tbhits)]
    words += ["time", str(info.time)]
    if info.pv:
        words += ["pv", *info.pv]
    return " ".join(words)
