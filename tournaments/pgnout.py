"""Appending finished games to the PGN file (and the EPD and log files) so that a killed run loses none of them."""

from __future__ import annotations

import os


class PgnWriter:
    """Appends games, each flushed and fsynced before the run records it as finished."""

    def __init__(self, path: str | None, truncate_to: int | None = None, separator: str = "\n\n") -> None:
        self.path = path
        self.separator = separator
        self.offset = 0
        if path is None:
            return
        with open(path, "ab") as f:
            if truncate_to is not None:
                # Resuming: drop whatever was written after the last game the state file knows,
                # so a game cut off mid-write, or written but never recorded, is not kept twice.
                f.truncate(truncate_to)
            self.offset = f.seek(0, os.SEEK_END)

    def append(self, text: str, separator: str | None = None) -> int:
        """Write one game; return the file's length afterwards (the state file keeps it)."""
        if self.path is None:
            return 0
        data = (text.rstrip("\n") + (self.separator if separator is None else separator)).encode("utf-8")
        with open(self.path, "ab") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
            self.offset = f.tell()
        return self.offset
