"""What the pages may send, checked on the server: positions, games, moves, levels and bounds.

Every check raises ``BadRequest`` with a message the page shows as it is; nothing from the
page reaches the engine unchecked.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any

import chess
import chess.pgn

from uci_engine.strength import FULL_STRENGTH_ELO, MAX_SKILL_LEVEL, MIN_ELO

MAX_PLIES = 600  # a game longer than this is refused (the fifty-move rule ends real games sooner)
MAX_PGN_CHARS = 200_000
MAX_FEN_CHARS = 100
MAX_MULTIPV = 5
MAX_THREADS = 4
MAX_HASH_MB = 256
MAX_ANALYSIS_S = 60.0  # one analysis stops by itself after this long
MAX_CLOCK_S = 3 * 3600.0
MAX_INCREMENT_S = 60.0
ELO_RANGE = (MIN_ELO, FULL_STRENGTH_ELO)  # the engine's UCI_Elo option: the strength curve's ends
SKILL_RANGE = (0, MAX_SKILL_LEVEL)  # the engine's Skill Level option


class BadRequest(ValueError):
    """Input the server refuses; its text is shown on the page."""


def field(data: dict[str, Any], name: str, kind: type, default: Any = None) -> Any:
    """``data[name]`` of type ``kind`` (or ``default`` when absent)."""
    value = data.get(name, default)
    if value is None and default is None and name not in data:
        raise BadRequest(f"{name} is missing")
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise BadRequest(f"{name} must be {'a number' if kind in (int, float) else kind.__name__}")
    return value


def bounded(data: dict[str, Any], name: str, low: float, high: float, default: float) -> float:
    """A number in ``[low, high]``."""
    value = field(data, name, float, float(default))
    if not low <= value <= high:
        raise BadRequest(f"{name} must be between {low:g} and {high:g} (got {value:g})")
    return float(value)


def parse_fen(text: Any) -> chess.Board:
    """A legal position from FEN (python-chess's checks: kings, back-rank pawns, the side not to move in check)."""
    if not isinstance(text, str) or not text.strip():
        raise BadRequest("the FEN is empty")
    if len(text) > MAX_FEN_CHARS:
        raise BadRequest(f"the FEN is too long ({len(text)} characters)")
    try:
        board = chess.Board(text.strip())
    except ValueError as err:
        raise BadRequest(f"bad FEN: {err}") from None
    status = board.status()
    if status != chess.STATUS_VALID:
        problems = [flag.name.lower().replace("_", " ") for flag in chess.Status
                    if flag and flag in status and flag.name]
        raise BadRequest(f"illegal position: {', '.join(problems) or 'invalid'}")
    return board


def replay(start: chess.Board, moves: Any) -> chess.Board:
    """``start`` after ``moves`` (UCI strings), each checked for legality."""
    if not isinstance(moves, list):
        raise BadRequest("moves must be a list of UCI moves")
    if len(moves) > MAX_PLIES:
        raise BadRequest(f"too many moves ({len(moves)}; at most {MAX_PLIES} plies)")
    board = start.copy()
    for number, text in enumerate(moves, 1):
        board.push(parse_move(board, text, number))
    return board


def parse_move(board: chess.Board, text: Any, number: int = 1) -> chess.Move:
    if not isinstance(text, str) or len(text) > 5:
        raise BadRequest(f"move {number} is not a UCI move")
    try:
        move = chess.Move.from_uci(text)
    except ValueError:
        raise BadRequest(f"move {number} ({text!r}) is not a UCI move") from None
    if move not in board.legal_moves:
        raise BadRequest(f"move {number} ({text}) is not legal in {board.fen()}")
    return move


@dataclass(frozen=True)
class LoadedGame:
    """A game read from PGN: where it starts, its moves, and its tags."""

    start: chess.Board
    moves: list[chess.Move]
    headers: dict[str, str]


def parse_pgn(text: Any) -> LoadedGame:
    """The first game of a PGN text, with every move checked; errors python-chess notes are refused."""
    if not isinstance(text, str) or not text.strip():
        raise BadRequest("the PGN is empty")
    if len(text) > MAX_PGN_CHARS:
        raise BadRequest(f"the PGN is too long ({len(text)} characters; at most {MAX_PGN_CHARS})")
    game = chess.pgn.read_game(io.StringIO(text))
    if game is None:
        raise BadRequest("no game found in the PGN")
    if game.errors:
        raise BadRequest(f"bad PGN: {game.errors[0]}")
    if game.headers.get("Variant", "Standard").lower() not in ("standard", "chess"):
        raise BadRequest(f"variant {game.headers['Variant']!r} is not supported")
    start = game.board()
    if start.status() != chess.STATUS_VALID:
        raise BadRequest("bad PGN: its FEN tag is not a legal position")
    moves = list(game.mainline_moves())
    if len(moves) > MAX_PLIES:
        raise BadRequest(f"the game is too long ({len(moves)} plies; at most {MAX_PLIES})")
    if not moves and "FEN" not in game.headers:
        raise BadRequest("no moves found in the PGN")
    return LoadedGame(start, moves, dict(game.headers))


@dataclass(frozen=True)
class Level:
    """How strongly the engine plays: by ``UCI_Elo``, by ``Skill Level``, or at full strength."""

    kind: str  # "elo", "skill" or "full"
    value: int = 0

    def options(self) -> dict[str, str | int | bool]:
        if self.kind == "elo":
            return {"UCI_LimitStrength": True, "UCI_Elo": self.value, "Skill Level": SKILL_RANGE[1]}
        if self.kind == "skill":
            return {"UCI_LimitStrength": False, "Skill Level": self.value}
        return {"UCI_LimitStrength": False, "Skill Level": SKILL_RANGE[1]}

    def label(self) -> str:
        return {"elo": f"Elo {self.value}", "skill": f"Skill {self.value}"}.get(self.kind, "full strength")


def parse_level(data: Any) -> Level:
    if not isinstance(data, dict):
        raise BadRequest("level must be an object with kind elo, skill or full")
    kind = data.get("kind")
    if kind == "full":
        return Level("full")
    if kind not in ("elo", "skill"):
        raise BadRequest(f"level kind must be elo, skill or full (got {kind!r})")
    low, high = ELO_RANGE if kind == "elo" else SKILL_RANGE
    value = field(data, "value", int)
    if not low <= value <= high:
        raise BadRequest(f"{'UCI_Elo' if kind == 'elo' else 'Skill Level'} must be between {low} and {high}")
    return Level(kind, value)


def outcome_of(board: chess.Board) -> tuple[str, str] | None:
    """The result and its reason when the game is over by the rules (claims are made for the players)."""
    outcome = board.outcome(claim_draw=True)
    if outcome is None:
        return None
    reasons = {chess.Termination.CHECKMATE: "checkmate", chess.Termination.STALEMATE: "stalemate",
               chess.Termination.INSUFFICIENT_MATERIAL: "insufficient material",
               chess.Termination.SEVENTYFIVE_MOVES: "75-move rule", chess.Termination.FIVEFOLD_REPETITION:
               "fivefold repetition", chess.Termination.FIFTY_MOVES: "50-move rule",
               chess.Termination.THREEFOLD_REPETITION: "threefold repetition"}
    reason = reasons.get(outcome.termination, outcome.termination.name.lower())
    if outcome.winner is not None:
        reason = f"{'White' if outcome.winner else 'Black'} mates"
    return outcome.result(), reason
