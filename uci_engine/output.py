"""Lines to the GUI: whole, one writer at a time, flushed at once; and `info` formatting."""

from __future__ import annotations

import threading
from typing import Any, BinaryIO, Dict, Iterable


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


_NUMBER_KEYS = ("depth", "seldepth", "multipv")
_COUNTER_KEYS = ("nodes", "nps", "hashfull", "tbhits", "time")


def format_info(info: Dict[str, Any]) -> str:
    """One UCI `info` line from a searcher's report, fields in the order the protocol lists them."""
    if "string" in info:
        return "info string " + " ".join(str(info["string"]).split())
    words = ["info"]
    for key in _NUMBER_KEYS:
        if info.get(key) is not None:
            words += [key, str(int(info[key]))]
    score = info.get("score")
    if score is not None:
        kind, value = score
        words += ["score", str(kind), str(int(value))]
        if info.get("bound") in ("lowerbound", "upperbound"):
            words.append(info["bound"])
    for key in _COUNTER_KEYS:
        if info.get(key) is not None:
            words += [key, str(int(info[key]))]
    if info.get("currmove"):
        words += ["currmove", str(info["currmove"])]
        if info.get("currmovenumber") is not None:
            words += ["currmovenumber", str(int(info["currmovenumber"]))]
    pv = info.get("pv")
    if pv:
        words += ["pv", *map(str, pv)]
    return " ".join(words)
