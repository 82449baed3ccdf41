"""Appending finished games to the PGN file (and the EPD and log files) so that a killed run loses none of them."""

from __future__ import annotations

import os


class PgnWriter:
    """Appends games to one file, kept open for the run.

    Each append reaches the operating system before the run records the game as finished, so a
    killed runner loses none.  Making it reach the disk (fsync) is the state store's writer
    thread's job (``StateStore.append(..., sync_first=...)``): it syncs these files before the
    journal line that points past them, and the runner's event loop, with the clocks of the
    games still running, never waits on the disk.
    """

    def __init__(self, path: str | None, truncate_to: int | None = None, separator: str = "\n\n") -> None:
        self.path = path
        self.separator = separator
        self.offset = 0
        self.fd: int | None = None
        if path is None:
            return
        self.fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_BINARY", 0), 0o644)
        size = os.fstat(self.fd).st_size
        if truncate_to is not None:
            if truncate_to > size:
                os.close(self.fd)
                self.fd = None
                raise OSError(f"{path} holds {size} bytes, fewer than the {truncate_to} its state file records "
                              "(it did not reach the disk before the machine stopped?)")
            # Resuming: drop whatever was written after the last game the state file knows,
            # so a game cut off mid-write, or written but never recorded, is not kept twice.
            os.ftruncate(self.fd, truncate_to)
            size = truncate_to
        self.offset = size

    def append(self, text: str, separator: str | None = None) -> int:
        """Write one game; return the file's length afterwards (the state file keeps it)."""
        if self.fd is None:
            return 0
        data = memoryview((text.rstrip("\n") + (self.separator if separator is None else separator)).encode("utf-8"))
        while data:
            written = os.write(self.fd, data)
            data = data[written:]
        self.offset = os.fstat(self.fd).st_size
        return self.offset

    def fileno(self) -> int | None:
        """The open file's descriptor (None without a file), for the writer thread to sync."""
        return self.fd

    def close(self) -> None:
        """Close the file (after the state store has synced it)."""
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
