"""Kestrel's compact game records (``.kgame``): a game's start position, then a move and a score a ply.

The data generator writes whole games, not positions: the positions follow from the moves, so a
searched position costs 4 bytes instead of a 32-byte ``.kpos`` record.  Every searched position is
kept; which of them train a net (quiet ones, past the opening, no mates ...) is decided when the
games are turned into training records (``to_training_records``), so filters and targets can change
without playing the games again.

A file is a sequence of games, so shards concatenate with ``cat``.  One game, little-endian::

    offset  size      field
    0       2         magic      b"KG"
    2       1         version    1
    3       1         result     uint8: the game's result from White's view: 0 loss, 1 draw, 2 win
    4       2         plies      uint16: how many ply entries follow
    6       32        start      the start position as a .kpos record (tools/nnue_data.py; its
                                 score and result fields are 0)
    38      4 * plies per ply:   uint16 move, int16 score

- **move**: bits 0-5 the from-square, 6-11 the to-square (a1 = 0 ... h8 = 63), 12-14 the promotion
  (0 none, 1 knight, 2 bishop, 3 rook, 4 queen), bit 15 zero.  Castling is the king's move in
  standard notation (e1g1).
- **score**: the search score of the position before the move, from the side to move's view, in
  centipawns within +-``CP_LIMIT``; a mate is ``+-(MATE_SCORE - plies to mate)``.

What a position's flags say (in check, the move a capture or promotion, a mate score) is a fact of
the position and its move, so the reader computes them while it replays the game instead of
storing them.
"""

from __future__ import annotations

import os
import struct
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from tools.nnue_data import RECORD_SIZE, RESULT_DRAW, RESULT_LOSS, RESULT_WIN, pack, unpack

GAME_SUFFIX = ".kgame"
MAGIC = b"KG"
VERSION = 1
HEADER = struct.Struct("<2sBBH")
GAME_HEADER_SIZE = HEADER.size + RECORD_SIZE
PLY = struct.Struct("<Hh")
PLY_SIZE = PLY.size
MAX_PLIES = 0xFFFF
MATE_SCORE = 32000
MATE_LIMIT = MATE_SCORE - 1000        # a stored score beyond this (either sign) is a mate
CP_LIMIT = 20000
PROMOTIONS = " nbrq"

FLAG_IN_CHECK = 1
FLAG_NOISY = 2                        # the move played is a capture or a promotion
FLAG_MATE = 4                         # the score is a mate score


@dataclass(frozen=True)
class Game:
    """One game: where it started, what was played and scored, and how it ended (White's view)."""

    start_fen: str
    result: int
    moves: tuple[str, ...]
    scores: tuple[int, ...]


@dataclass(frozen=True)
class Sample:
    """One searched position of a game, as the reader replays it."""

    fen: str
    score: int                        # side to move's view
    result: int                       # RESULT_* from the side to move's view
    ply: int                          # plies since the game's start position
    flags: int


@dataclass(frozen=True)
class Filters:
    """Which searched positions become training records."""

    min_ply: int = 0                  # skip the first plies after the start position
    keep_checks: bool = False
    keep_noisy: bool = False
    max_abs_score: int = CP_LIMIT     # mates are never kept: their scores are not centipawns

    def keeps(self, sample: Sample) -> bool:
        return self.keeps_flags(sample.ply, sample.score, sample.flags)

    def keeps_flags(self, ply: int, score: int, flags: int) -> bool:
        return (ply >= self.min_ply
                and not flags & FLAG_MATE
                and (self.keep_checks or not flags & FLAG_IN_CHECK)
                and (self.keep_noisy or not flags & FLAG_NOISY)
                and abs(score) <= self.max_abs_score)


def encode_score(kind: str, value: int) -> int:
    """The stored score of a search's ``('cp', n)`` or ``('mate', moves)``."""
    if kind == "mate":
        plies = 2 * value - 1 if value > 0 else -2 * value
        plies = min(plies, MATE_SCORE - MATE_LIMIT - 1)
        return MATE_SCORE - plies if value > 0 else -(MATE_SCORE - plies)
    return max(-CP_LIMIT, min(CP_LIMIT, value))


def is_mate_score(score: int) -> bool:
    return abs(score) > MATE_LIMIT


def _square(text: str) -> int:
    file, rank = ord(text[0]) - ord("a"), ord(text[1]) - ord("1")
    if not (0 <= file < 8 and 0 <= rank < 8):
        raise ValueError(f"not a square: {text!r}")
    return file + 8 * rank


def encode_move(uci: str) -> int:
    """The 16-bit code of a UCI move (``e2e4``, ``e7e8q``)."""
    if len(uci) not in (4, 5):
        raise ValueError(f"not a move: {uci!r}")
    promotion = PROMOTIONS.find(uci[4]) if len(uci) == 5 else 0
    if promotion <= 0 and len(uci) == 5:
        raise ValueError(f"not a promotion: {uci!r}")
    return _square(uci[:2]) | _square(uci[2:4]) << 6 | promotion << 12


def decode_move(code: int) -> str:
    if code >> 15 or (code >> 12) & 7 > 4:
        raise ValueError(f"not a move code: {code:#06x}")
    names = "abcdefgh"
    source, target, promotion = code & 63, code >> 6 & 63, code >> 12 & 7
    text = f"{names[source & 7]}{source // 8 + 1}{names[target & 7]}{target // 8 + 1}"
    return text + PROMOTIONS[promotion] if promotion else text


def pack_game(start_fen: str, result: int, moves: Iterable[str], scores: Iterable[int]) -> bytes:
    """The bytes of one game; ``result`` is White's (RESULT_*), one score per move."""
    move_list, score_list = list(moves), list(scores)
    if len(move_list) != len(score_list):
        raise ValueError("one score per move")
    if len(move_list) > MAX_PLIES:
        raise ValueError(f"a game of more than {MAX_PLIES} plies")
    if result not in (RESULT_LOSS, RESULT_DRAW, RESULT_WIN):
        raise ValueError(f"result must be 0, 1 or 2, not {result!r}")
    body = b"".join(PLY.pack(encode_move(move), max(-32767, min(32767, score)))
                    for move, score in zip(move_list, score_list, strict=True))
    return HEADER.pack(MAGIC, VERSION, result, len(move_list)) + pack(start_fen, 0, RESULT_DRAW) + body


def _header(data: bytes | memoryview, offset: int) -> tuple[int, int]:
    """(result, plies) of the game header at ``offset``; ValueError when it is not one."""
    magic, version, result, plies = HEADER.unpack_from(data, offset)
    if magic != MAGIC:
        raise ValueError(f"no game starts at byte {offset} (magic {bytes(magic)!r})")
    if version != VERSION:
        raise ValueError(f"game format version {version} at byte {offset}; this reader knows {VERSION}")
    if result > RESULT_WIN:
        raise ValueError(f"bad result {result} in the game at byte {offset}")
    return result, plies


def iter_games(data: bytes | memoryview) -> Iterator[Game]:
    """The games in ``data``; ValueError at the first byte that does not continue a game."""
    view = memoryview(data)
    offset = 0
    while offset < len(view):
        if len(view) - offset < GAME_HEADER_SIZE:
            raise ValueError(f"a cut game header at byte {offset}")
        result, plies = _header(view, offset)
        start = unpack(view[offset + HEADER.size:offset + GAME_HEADER_SIZE]).fen
        body = offset + GAME_HEADER_SIZE
        end = body + plies * PLY_SIZE
        if end > len(view):
            raise ValueError(f"the game at byte {offset} is cut short")
        moves, scores = [], []
        for ply in range(plies):
            code, score = PLY.unpack_from(view, body + ply * PLY_SIZE)
            moves.append(decode_move(code))
            scores.append(score)
        yield Game(start, result, tuple(moves), tuple(scores))
        offset = end


def _whole_game_ends(path: str) -> Iterator[tuple[int, int]]:
    """(plies, end byte) of each whole game at the start of a file, reading headers only; it stops
    at the first bytes that are not a whole game."""
    offset = 0
    size = os.path.getsize(path)
    with open(path, "rb") as handle:
        while size - offset >= GAME_HEADER_SIZE:
            handle.seek(offset)
            header = handle.read(HEADER.size)
            try:
                _, count = _header(header, 0)
            except (ValueError, struct.error):
                return
            end = offset + GAME_HEADER_SIZE + count * PLY_SIZE
            if end > size:
                return
            yield count, end
            offset = end


def scan(path: str) -> tuple[int, int, int]:
    """(games, plies, bytes) of the whole games at the start of a file, reading headers only: where
    a resumed writer goes on, and what a killed one left whole."""
    games = plies = offset = 0
    for count, end in _whole_game_ends(path):
        games, plies, offset = games + 1, plies + count, end
    return games, plies, offset


def cut_partial_game(path: str) -> tuple[int, int, int, int]:
    """Cut the bytes after a file's last whole game (a writer killed inside a write); `scan`'s
    (games, plies, bytes) of what it keeps, and the number of bytes cut.  Whole-game files can then
    be joined with `cat`."""
    games, plies, whole = scan(path)
    cut = os.path.getsize(path) - whole
    if cut:
        with open(path, "r+b") as handle:
            handle.truncate(whole)
    return games, plies, whole, cut


def split_games(path: str, games: int, head_path: str, rest_path: str) -> tuple[int, int]:
    """Write a file's first ``games`` whole games to ``head_path`` and its other whole games to
    ``rest_path`` (a held-out set and the training games of one shard, say; a partial game at the
    end is left out); the number of games in each.  Bytes are copied, not re-encoded."""
    if games < 0:
        raise ValueError(f"cannot split off {games} games")
    ends = [end for _, end in _whole_game_ends(path)]
    total = len(ends)
    head_games = min(games, total)
    offset = ends[head_games - 1] if head_games else 0
    with open(path, "rb") as handle:
        data = handle.read(ends[-1] if ends else 0)
    with open(head_path, "wb") as head:
        head.write(data[:offset])
    with open(rest_path, "wb") as rest:
        rest.write(data[offset:])
    return head_games, total - head_games


def read_games(path: str) -> Iterator[Game]:
    """Every game of a file (ValueError on a file that is not whole games)."""
    with open(path, "rb") as handle:
        data = handle.read()
    return iter_games(data)


def whole_games(path: str) -> Iterator[Game]:
    """The whole games of a file; a partial game at the end (a generator still writing, or killed
    inside a write) is left out, with a note on stderr."""
    games, _, whole = scan(path)
    with open(path, "rb") as handle:
        data = handle.read(whole)
    if whole != os.path.getsize(path):
        print(f"{path}: the bytes after game {games} are not a whole game; left out", file=sys.stderr)
    return iter_games(data)


def is_capture(position: Any, uci: str) -> bool:
    """Whether a legal move of ``position`` (a core ``Position``) captures, en passant included."""
    if position.piece_at(_square(uci[2:4])) is not None:
        return True
    # A pawn that changes file onto an empty square captures en passant.
    return bool(position.piece_at(_square(uci[:2])) in ("P", "p") and uci[0] != uci[2])


def replay(game: Game) -> Iterator[tuple[Any, int, int, int, int]]:
    """(position, ply, score, result, flags) of each searched position of a game, replayed with the
    core's ``Position``: the position object is the same one, moved on after each step."""
    from search.board.position import Position
    position = Position(game.start_fen)
    for ply, (move, score) in enumerate(zip(game.moves, game.scores, strict=True)):
        flags = FLAG_IN_CHECK if position.is_check() else 0
        if len(move) == 5 or is_capture(position, move):
            flags |= FLAG_NOISY
        if is_mate_score(score):
            flags |= FLAG_MATE
        result = game.result if position.turn else RESULT_WIN - game.result
        yield position, ply, score, result, flags
        if not position.is_legal(move):
            raise ValueError(f"illegal move {move} at ply {ply} of a game from {game.start_fen}")
        position.push(move)


def samples(game: Game) -> Iterator[Sample]:
    """The searched positions of a game, with their FENs."""
    for position, ply, score, result, flags in replay(game):
        yield Sample(position.fen(), score, result, ply, flags)


def to_training_records(games: Iterable[Game], filters: Filters) -> Iterator[bytes]:
    """The .kpos records of the positions the filters keep, game by game."""
    for game in games:
        yield b"".join(pack(position, score, result) for position, ply, score, result, flags in replay(game)
                       if filters.keeps_flags(ply, score, flags))


def training_array(path: str, filters: Filters) -> Any:
    """The training records of a game file's whole games, as an (N, 32) uint8 numpy array: what
    the merge writes and the trainer reads (numpy imported here)."""
    import numpy as np
    packed = b"".join(to_training_records(whole_games(path), filters))
    return np.frombuffer(packed, dtype=np.uint8).reshape(-1, RECORD_SIZE)
