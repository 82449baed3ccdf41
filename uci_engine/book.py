"""A Polyglot opening book consulted at the root, read with python-chess.

The file `BookFile` names is read the way `EvalFile`'s net is (``eval/input_files.py``): looked at
before it is opened, opened without blocking and checked again through its descriptor, so that a
FIFO, a device or a directory, or a path swapped for one between the two looks, is refused and never
waited on; then read whole, at most `MAX_BOOK_BYTES`, into memory, where python-chess's lookups
search it.  The protocol calls `read_book` on a helper thread that it waits for at most `READ_WAIT_S`
(``uci_engine.evaluation.call_within``), so a stalled file system cannot keep `isready`, `stop` and
`quit` unanswered.
"""

from __future__ import annotations

import random
from collections.abc import Collection

import chess
import chess.polyglot

from eval.input_files import open_regular_file, read_exactly

# Books of a few MB are usual; the whole file is held in memory, so one past 256 MiB (16.7 million
# entries) is refused rather than allowed to take the engine's memory.
MAX_BOOK_BYTES = 256 << 20
ENTRY_BYTES = chess.polyglot.ENTRY_STRUCT.size
# How long the command thread waits for the read: the largest book (256 MiB) takes 13 s at a slow
# disk's 20 MB/s.
READ_WAIT_S = 15.0


class _Entries(bytes):
    """A book's bytes as python-chess's reader reads its map (``size`` and ``close``, as its own
    stand-in for an empty book has them)."""

    def size(self) -> int:
        return len(self)

    def close(self) -> None:
        """Nothing to release: the bytes go with the reader."""


class BookReader(chess.polyglot.MemoryMappedReader):
    """python-chess's Polyglot reader over a book's bytes in memory.  Its own constructor opens the
    path again (which by then could name a FIFO, and would wait on it); its lookups read only
    ``self.mmap``, which here is the bytes `read_book` read through the checked descriptor."""

    def __init__(self, data: bytes) -> None:
        self.mmap = _Entries(data)  # type: ignore[assignment]  # python-chess types it as its map


def read_book(path: str) -> BookReader:
    """The Polyglot book in the file at `path`; OSError when it cannot be read, ValueError naming the
    problem when it is no regular file, is empty, too large or not a whole number of entries."""
    file, size = open_regular_file(path)
    with file:
        if size == 0:
            raise ValueError(f"{path}: an empty file, no book entries")
        if size > MAX_BOOK_BYTES:
            raise ValueError(f"{path}: {size:,} bytes, more than the {MAX_BOOK_BYTES:,} of the largest book "
                             "this engine reads")
        if size % ENTRY_BYTES:
            raise ValueError(f"{path}: {size:,} bytes, not a whole number of {ENTRY_BYTES}-byte Polyglot entries")
        data = read_exactly(file, size)
    if len(data) != size:
        raise ValueError(f"{path}: the file got shorter while it was read")
    return BookReader(data)


class OpeningBook:
    """The book named by the BookFile option; `choose` draws a move weighted by the book's counts."""

    def __init__(self, rng: random.Random | None = None) -> None:
        self.path = ""
        self._reader: chess.polyglot.MemoryMappedReader | None = None
        self._rng = rng or random.Random()

    @property
    def is_open(self) -> bool:
        return self._reader is not None

    def use(self, path: str, reader: chess.polyglot.MemoryMappedReader) -> None:
        """Play from `reader`, the book read from `path` (`read_book`), in place of any other."""
        self.close()
        self._reader, self.path = reader, path

    def close(self) -> None:
        if self._reader is not None:
            self._reader.close()
        self._reader = None
        self.path = ""

    def choose(self, fen: str, legal: Collection[str]) -> tuple[str, str | None] | None:
        """A book move for `fen` and the book's main reply to it (or None), if the position is in the book.

        `legal` is the engine's own list of legal moves: a move from a corrupt or foreign
        file is never played unless the engine's board agrees it is legal.
        """
        if self._reader is None:
            return None
        board = chess.Board(fen)
        entries = [e for e in self._reader.find_all(board) if e.move.uci() in legal]
        if not entries:
            return None
        pick = self._rng.choices(entries, weights=[e.weight for e in entries])[0]
        board.push(pick.move)
        replies = list(self._reader.find_all(board))
        reply = max(replies, key=lambda e: e.weight).move.uci() if replies else None
        return pick.move.uci(), reply
