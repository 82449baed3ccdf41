"""A Polyglot opening book consulted at the root, read with python-chess."""

from __future__ import annotations

import random
from collections.abc import Collection

import chess
import chess.polyglot

from eval.input_files import regular_file_size


class OpeningBook:
    """The book named by the BookFile option; `choose` draws a move weighted by the book's counts."""

    def __init__(self, rng: random.Random | None = None) -> None:
        self.path = ""
        self._reader: chess.polyglot.MemoryMappedReader | None = None
        self._rng = rng or random.Random()

    @property
    def is_open(self) -> bool:
        return self._reader is not None

    def open(self, path: str) -> None:
        """Use the book at `path` ("" for none). OSError or ValueError if it cannot be read;
        the book is then closed, so a bad path never leaves a stale book in use."""
        self.close()
        if not path:
            return
        # Only a regular file is opened: python-chess's open would wait forever on a FIFO (or on
        # /dev/stdin, eating the GUI's commands). It maps the file, reading only what lookups touch,
        # and refuses a size that is not a whole number of 16-byte entries.
        regular_file_size(path)
        self._reader = chess.polyglot.open_reader(path)
        self.path = path

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
