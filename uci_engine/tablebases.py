"""Syzygy tablebases at the root (`SyzygyPath` and friends), through python-chess.

A position in the tables is played by the tables: among the winning moves the one that
reaches a zeroing move soonest (lowest DTZ), so the win is never spoiled by the 50-move
rule; among drawing moves, or when every move loses, the search chooses, restricted to
the moves that keep the best result (the longest resistance when lost).  Probes happen
once per `go` at the root.  Inside the search the same tables answer WDL probes through
`wdl_prober`, called back from the C search with the GIL (search/tbprobe.pxd says when).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import chess
import chess.syzygy

# The score shown for a tablebase win: far above any evaluation, below mate scores.
TB_WIN_CP = 20_000


@dataclass(frozen=True)
class RootProbe:
    """The tables' verdict on the root: the moves to play and the score to report."""

    moves: list[str]          # a single move when the tables decide, else the moves the search may choose from
    decided: bool             # True: play moves[0] without searching
    wdl: int                  # -2..2 for the side to move, after the 50-move rule when it applies
    score_cp: int
    tbhits: int


class Tablebases:
    """The tables found on SyzygyPath; empty (and harmless) when there are none."""

    def __init__(self) -> None:
        self._tables: chess.syzygy.Tablebase | None = None
        self.path = ""
        self.max_pieces = 0

    def open(self, path: str) -> list[str]:
        """Use the tables in `path` (folders joined by os.pathsep); the problems found, for the GUI."""
        self.close()
        self.path = path
        problems: list[str] = []
        if not path.strip():
            return problems
        tables = chess.syzygy.Tablebase()
        for folder in path.split(os.pathsep):
            folder = folder.strip()
            if not folder:
                continue
            if not Path(folder).is_dir():
                problems.append(f"SyzygyPath: {folder!r} is not a folder")
                continue
            try:
                found = tables.add_directory(folder)
            except OSError as exc:
                problems.append(f"SyzygyPath: {folder!r} cannot be read ({exc})")
                continue
            if found == 0:
                problems.append(f"SyzygyPath: no Syzygy tables in {folder!r}")
        pieces = [sum(1 for c in name if c.isalpha() and c != "v") for name in tables.wdl]
        if pieces:
            self._tables = tables
            self.max_pieces = max(pieces)
        else:
            tables.close()
        return problems

    def close(self) -> None:
        if self._tables is not None:
            self._tables.close()
        self._tables = None
        self.max_pieces = 0

    @property
    def available(self) -> bool:
        return self._tables is not None

    def wdl_prober(self, fifty_move_rule: bool) -> Callable[[str], int | None] | None:
        """For probes inside the search: fen -> the side to move's WDL (2 win, 0 draw, -2 loss,
        the 50-move rule applied or not), None when the tables do not hold the position.
        The search probes only right after a zeroing move, where the tables' WDL is exact."""
        tables = self._tables
        if tables is None:
            return None

        def probe(fen: str) -> int | None:
            wdl = tables.get_wdl(chess.Board(fen))
            if wdl is None:
                return None
            if fifty_move_rule:
                return 0 if abs(wdl) == 1 else wdl     # a cursed win or blessed loss is a draw
            return _ignoring_fifty_move_rule(wdl)

        return probe

    def covered_board(self, fen: str, chess960: bool, probe_limit: int) -> chess.Board | None:
        """`fen` as a board for probe_root when the tables can judge it (few enough men, no
        castling rights, not over); None when they cannot."""
        if self._tables is None:
            return None
        board = chess.Board(fen, chess960=chess960)
        pieces = chess.popcount(board.occupied)
        if pieces > min(probe_limit, self.max_pieces) or board.castling_rights or board.is_game_over():
            return None
        return board

    def probe_root(self, board: chess.Board, fifty_move_rule: bool) -> RootProbe | None:
        """The verdict on `board`, one that covered_board returned; None when a file is damaged."""
        try:
            return self._probe(board, fifty_move_rule)
        except (KeyError, OSError, IndexError, ValueError, chess.syzygy.MissingTableError):
            return None      # a missing or damaged table: the search plays the move

    def _probe(self, board: chess.Board, fifty_move_rule: bool) -> RootProbe:
        assert self._tables is not None
        tables = self._tables
        hits = 0
        verdicts: list[tuple[chess.Move, int, int]] = []     # move, wdl for us, dtz for us
        for move in board.legal_moves:
            board.push(move)
            try:
                clock = board.halfmove_clock
                if board.is_checkmate():
                    wdl, dtz = 2, 1
                elif board.is_stalemate() or board.is_insufficient_material():
                    wdl, dtz = 0, 0
                else:
                    # The tables speak for the side to move: the opponent, after our move.
                    wdl = -tables.probe_wdl(board)
                    dtz = -tables.probe_dtz(board)
                    hits += 2
                    if clock == 0 and dtz != 0:
                        dtz = 1 if dtz > 0 else -1    # our move zeroed the count: nothing to race
            finally:
                board.pop()
            wdl = _with_fifty_move_rule(wdl, dtz, clock) if fifty_move_rule else _ignoring_fifty_move_rule(wdl)
            verdicts.append((move, wdl, dtz))
        best_wdl = max(wdl for _, wdl, _ in verdicts)
        keeping = [(m, wdl, dtz) for m, wdl, dtz in verdicts if wdl == best_wdl]
        if best_wdl > 0:
            # The quickest way to the next zeroing move: a mate first, then the lowest DTZ.
            move = min(keeping, key=lambda v: (not board.gives_check(v[0]) or not _mates(board, v[0]), abs(v[2])))[0]
            return RootProbe([move.uci()], True, best_wdl, TB_WIN_CP if best_wdl == 2 else 0, hits)
        if best_wdl < 0:
            # Lost: resist longest (the highest DTZ); the search picks among those.
            longest = max(abs(dtz) for _, _, dtz in keeping)
            moves = [m.uci() for m, _, dtz in keeping if abs(dtz) == longest]
            return RootProbe(moves, len(moves) == 1, best_wdl, -TB_WIN_CP if best_wdl == -2 else 0, hits)
        return RootProbe([m.uci() for m, _, _ in keeping], len(keeping) == 1, 0, 0, hits)


def _mates(board: chess.Board, move: chess.Move) -> bool:
    board.push(move)
    try:
        return board.is_checkmate()
    finally:
        board.pop()


def _ignoring_fifty_move_rule(wdl: int) -> int:
    """Syzygy50MoveRule off: a cursed win is a win, a blessed loss a loss."""
    return 2 if wdl > 0 else (-2 if wdl < 0 else 0)


def _with_fifty_move_rule(wdl: int, dtz: int, halfmove_clock: int) -> int:
    """A win (loss) that needs more than the 50-move rule allows is a cursed win (blessed loss)."""
    if wdl == 2 and abs(dtz) + halfmove_clock > 100:
        return 1
    if wdl == -2 and abs(dtz) + halfmove_clock > 100:
        return -1
    return wdl
