"""Ending games early: by the rules, by score (draw and resign), and by length.

Scores are the engines' own, from the point of view of the side that reported
them, in centipawns (mates become large numbers).
"""

from __future__ import annotations

import os
import sys
import weakref
from dataclasses import dataclass

import chess
import chess.engine
import chess.syzygy

from search.scores import MATE_CP  # the one engine module the runner shares (pure Python)
from tournaments.config import AdjudicationConfig, ConfigError


@dataclass(frozen=True)
class Verdict:
    """How a game ended: ``result`` as in PGN, ``termination`` a PGN Termination word, ``reason`` for people."""

    result: str
    termination: str
    reason: str


def rules_verdict(board: chess.Board) -> Verdict | None:
    """The game's own end by the rules, or None.

    Threefold repetition and the fifty-move rule end the game at once, as
    testing tools do, rather than waiting for a claim.
    """
    if board.is_checkmate():
        winner = "White" if board.turn == chess.BLACK else "Black"
        return Verdict("1-0" if winner == "White" else "0-1", "normal", f"{winner} mates")
    if board.is_stalemate():
        return Verdict("1/2-1/2", "normal", "Draw by stalemate")
    if board.is_insufficient_material():
        return Verdict("1/2-1/2", "normal", "Draw by insufficient mating material")
    if board.halfmove_clock >= 100:
        return Verdict("1/2-1/2", "normal", "Draw by fifty moves rule")
    if board.is_repetition(3):
        return Verdict("1/2-1/2", "normal", "Draw by 3-fold repetition")
    return None


class Adjudicator:
    """Watches the scores of one game and calls it when the thresholds say so."""

    def __init__(self, config: AdjudicationConfig) -> None:
        self.config = config
        self.scores: list[int | None] = []  # one per ply played by the engines, mover's view
        self.plies = 0

    def record(self, score: int | None) -> None:
        self.scores.append(score)
        self.plies += 1

    def verdict(self, board: chess.Board) -> Verdict | None:
        """Call after each engine move (``board`` is after that move)."""
        c = self.config
        mover = not board.turn  # the side that has just moved
        mover_name = "White" if mover == chess.WHITE else "Black"
        if c.resign_movecount and c.resign_score is not None:
            n = c.resign_movecount
            own = self.scores[-1::-2][:n]
            other = self.scores[-2::-2][:n]
            lost = len(own) == n and all(s is not None and s <= -c.resign_score for s in own)
            agreed = not c.resign_twosided or (
                len(other) == n and all(s is not None and s >= c.resign_score for s in other))
            if lost and agreed:
                result = "0-1" if mover == chess.WHITE else "1-0"
                return Verdict(result, "adjudication", f"{mover_name} resigns (score adjudication)")
        if c.draw_movecount and c.draw_score is not None:
            n = 2 * c.draw_movecount
            last = self.scores[-n:]
            after = board.fullmove_number > (c.draw_movenumber or 0)
            if after and len(last) == n and all(s is not None and abs(s) <= c.draw_score for s in last):
                return Verdict("1/2-1/2", "adjudication", "Draw by adjudication (scores)")
        if c.maxmoves is not None and self.plies >= 2 * c.maxmoves:
            return Verdict("1/2-1/2", "adjudication", f"Draw by adjudication (maximum length {c.maxmoves} moves)")
        return None


def score_cp(score: chess.engine.PovScore | None, color: chess.Color) -> int | None:
    """Centipawns from ``color``'s view, mates as +-``MATE_CP``."""
    if score is None:
        return None
    return score.pov(color).score(mate_score=MATE_CP)



_TABLEBASES: dict[str, chess.syzygy.Tablebase] = {}
# Per tablebase: the materials (``KQvK``) whose tables failed to load, probed no more.
_BROKEN: weakref.WeakKeyDictionary[chess.syzygy.Tablebase, set[str]] = weakref.WeakKeyDictionary()


def open_tablebase(paths: str) -> chess.syzygy.Tablebase:
    """The Syzygy tables in ``paths`` (folders joined by ``os.pathsep``), opened once per process.

    Raises ``ConfigError`` when no table is found: adjudication that silently
    never happens would be worse than none.
    """
    if paths not in _TABLEBASES:
        tablebase = chess.syzygy.Tablebase()
        found = 0
        for folder in paths.split(os.pathsep):
            if not os.path.isdir(folder):
                raise ConfigError(f"-tb: {folder} is not a folder")
            found += tablebase.add_directory(folder)
        if not found:
            raise ConfigError(f"-tb: no Syzygy tables (.rtbw) in {paths}")
        _TABLEBASES[paths] = tablebase
    return _TABLEBASES[paths]


def tablebase_verdict(board: chess.Board, tablebase: chess.syzygy.Tablebase, max_pieces: int,
                      ignore50: bool) -> Verdict | None:
    """The tablebase result of a position with few pieces, or None (too many pieces, castling, no table).

    A cursed win (a win the fifty-move rule turns into a draw) is a draw
    unless ``ignore50``, as in cutechess-cli's ``-tbignore50``. A table file
    that cannot be read (truncated, corrupt, empty) is reported once on
    stderr and that material is no longer adjudicated: the games play on.
    """
    if chess.popcount(board.occupied) > max_pieces or board.castling_rights or board.chess960:
        return None
    broken = _BROKEN.setdefault(tablebase, set())
    material = chess.syzygy.calc_key(board)
    if material in broken:
        return None
    try:
        wdl = tablebase.probe_wdl(board)
    except (KeyError, IndexError):  # MissingTableError is a KeyError
        return None
    except (OSError, ValueError) as err:  # python-chess: bad magic or size (OSError), an empty file (ValueError)
        broken.add(material)
        sys.stderr.write(f"Warning: -tb: cannot probe {material} ({err}); positions with this material are "
                         f"played on without tablebase adjudication\n")
        sys.stderr.flush()
        return None
    if wdl == 0 or (abs(wdl) == 1 and not ignore50):
        return Verdict("1/2-1/2", "adjudication", "Draw by tablebase")
    winner = board.turn if wdl > 0 else not board.turn
    name = "White" if winner == chess.WHITE else "Black"
    return Verdict("1-0" if winner == chess.WHITE else "0-1", "adjudication", f"{name} wins by tablebase")
