"""Start positions: a FEN plus the book moves played from it.

EPD files give one position a line (four-field EPD or a full FEN); PGN files
give the main line of each game, cut to a ply limit. The order is the file's,
or shuffled with a seed so that a resumed run sees the same sequence.

Games start from the standard start position whenever possible: PGN and
built-in openings are played as moves, and an EPD position that a few plies
reach (``replay.path_from_start``) becomes those moves, so that engines without
``setboard`` can play it. Those found moves are not the book's: the PGN starts
at the EPD position itself (``FEN``/``SetUp`` tags), as fastchess writes it.
"""

from __future__ import annotations

import io
import random
from dataclasses import dataclass

import chess
import chess.pgn

from tournaments.config import ConfigError, OpeningsConfig
from tournaments.replay import path_from_start

# A few well-known, balanced lines, so that a run without a book file still varies its games.
BUILTIN_LINES = [
    "e2e4 e7e5 g1f3 b8c6 f1b5 a7a6",  # Ruy Lopez
    "e2e4 c7c5 g1f3 d7d6 d2d4 c5d4",  # Sicilian
    "d2d4 d7d5 c2c4 e7e6 b1c3 g8f6",  # Queen's Gambit Declined
    "d2d4 g8f6 c2c4 g7g6 b1c3 f8g7",  # King's Indian
    "e2e4 e7e6 d2d4 d7d5 b1c3 f8b4",  # French Winawer
    "e2e4 c7c6 d2d4 d7d5 e4e5 c8f5",  # Caro-Kann Advance
    "c2c4 e7e5 b1c3 g8f6 g2g3 d7d5",  # English
    "g1f3 d7d5 g2g3 g8f6 f1g2 c7c6",  # Reti
]


@dataclass(frozen=True)
class Opening:
    """A start position and the book moves (UCI) that lead from it to where the engines begin."""

    fen: str
    moves: tuple[str, ...] = ()
    chess960: bool = False
    # Leading moves that only lead from the start position to an EPD position: the engines get
    # them (engines without setboard need them), the PGN starts after them with a FEN tag.
    hidden: int = 0

    @property
    def from_start(self) -> bool:
        """True if the game starts from the standard start position (book moves may follow)."""
        return self.fen == chess.STARTING_FEN and not self.chess960

    def start_board(self) -> chess.Board:
        """The position before the book moves."""
        return chess.Board(self.fen, chess960=self.chess960)

    def board(self) -> chess.Board:
        board = self.start_board()
        for uci in self.moves:
            board.push_uci(uci)
        return board

    def pgn_board(self) -> chess.Board:
        """The position the PGN starts from: the start position, or the EPD position after hidden moves."""
        board = self.start_board()
        for uci in self.moves[:self.hidden]:
            board.push_uci(uci)
        return board


def _parse_epd_line(line: str) -> Opening | None:
    """The opening of one EPD line, by string work only: big books load fast.

    Positions are checked when the run uses them (``validate``), not all 40,000 at load.
    """
    fields = line.split()
    if len(fields) < 4:
        return None
    # A full FEN ends in two counters; plain EPD carries operations (bm, id) instead.
    if len(fields) >= 6 and fields[4].isdigit() and fields[5].isdigit():
        return Opening(" ".join(fields[:6]))
    return Opening(" ".join(fields[:4]) + " 0 1")


def read_epd(text: str) -> list[Opening]:
    openings = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            opening = _parse_epd_line(line)
            if opening is not None:
                openings.append(opening)
    return openings


def validate(opening: Opening) -> None:
    """Raise ``ConfigError`` for a start position or book line that cannot be played."""
    try:
        board = opening.board()
    except ValueError as err:
        raise ConfigError(f"bad opening {opening.fen!r} {' '.join(opening.moves)}: {err}") from None
    if not board.is_valid():
        if not opening.chess960 and _valid_chess960(opening):
            raise ConfigError(f"opening {opening.fen!r} is a Chess960 position (its castling rights need "
                              f"Chess960 rules): play the book with -variant fischerandom")
        raise ConfigError(f"invalid opening position: {opening.fen!r}")


def _valid_chess960(opening: Opening) -> bool:
    try:
        return Opening(opening.fen, opening.moves, chess960=True).board().is_valid()
    except ValueError:
        return False


def as_moves(opening: Opening) -> Opening:
    """The same opening played as moves from the start position, if a short path is found; else itself."""
    if opening.from_start or opening.chess960:
        return opening
    path = path_from_start(opening.fen)
    if path is None:
        return opening
    return Opening(chess.STARTING_FEN, path + opening.moves, hidden=len(path))


def read_pgn(text: str, plies: int | None) -> list[Opening]:
    openings = []
    stream = io.StringIO(text)
    while True:
        game = chess.pgn.read_game(stream)
        if game is None:
            break
        if game.errors:
            raise ConfigError(f"bad PGN opening: {game.errors[0]}")
        moves = [m.uci() for m in game.mainline_moves()]
        if plies is not None:
            moves = moves[:plies]
        openings.append(Opening(game.board().fen(), tuple(moves)))
    return openings


def builtin_openings() -> list[Opening]:
    return [Opening(chess.STARTING_FEN, tuple(line.split())) for line in BUILTIN_LINES]


def chess960_openings() -> list[Opening]:
    """The 960 Chess960 start positions, in Scharnagl's numbering (518 is the standard one)."""
    return [Opening(chess.Board.from_chess960_pos(i).fen(), (), chess960=True) for i in range(960)]


def load_openings(config: OpeningsConfig, seed: int, variant: str = "standard") -> list[Opening]:
    """All openings of a run in the order they will be used (offset and shuffle applied)."""
    chess960 = variant == "fischerandom"
    if config.file is None and chess960:
        openings = chess960_openings()
    elif config.file is None:
        openings = builtin_openings()
        if config.plies is not None:
            openings = [Opening(o.fen, o.moves[:config.plies]) for o in openings]
    else:
        fmt = config.format or ("pgn" if config.file.lower().endswith(".pgn") else "epd")
        try:
            with open(config.file, encoding="utf-8", errors="replace") as f:
                text = f.read()
        except OSError as err:
            raise ConfigError(f"cannot read openings file: {err}") from None
        if fmt == "pgn":
            openings = read_pgn(text, config.plies)
        elif fmt == "epd":
            openings = read_epd(text)
        else:
            raise ConfigError(f"unknown openings format {fmt!r} (epd or pgn)")
    if not openings:
        raise ConfigError("no openings found")
    if chess960:
        openings = [Opening(o.fen, o.moves, chess960=True) for o in openings]
    if config.order == "random":
        random.Random(seed).shuffle(openings)
    start = (max(1, config.start) - 1) % len(openings)
    return openings[start:] + openings[:start]
