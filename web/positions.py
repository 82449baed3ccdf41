"""A position as the pages draw it: FEN, legal moves, check, the moves so far in SAN, result, PGN."""

from __future__ import annotations

import datetime
from typing import Any

import chess
import chess.pgn

from web.validation import BadRequest, outcome_of

PGN_TAGS = ("Event", "White", "Black", "Result", "Termination", "TimeControl")
MAX_TAG_CHARS = 100


def sans(start: chess.Board, moves: list[chess.Move]) -> list[str]:
    board = start.copy()
    out = []
    for move in moves:
        out.append(board.san(move))
        board.push(move)
    return out


def flag_outcome(board: chess.Board, flagged: chess.Color) -> tuple[str, str]:
    """The result when ``flagged`` ran out of time: a draw if the other side cannot mate at all."""
    name = "White" if flagged == chess.WHITE else "Black"
    if board.has_insufficient_material(not flagged):
        return "1/2-1/2", f"{name} runs out of time, and the opponent cannot mate"
    return ("0-1" if flagged == chess.WHITE else "1-0"), f"{name} loses on time"


def pgn_text(start: chess.Board, board: chess.Board, tags: dict[str, str]) -> str:
    game = chess.pgn.Game.from_board(board)
    game.headers["Event"] = "Kestrel web"
    game.headers["Site"] = "local"
    game.headers["Date"] = datetime.date.today().strftime("%Y.%m.%d")
    for key, value in tags.items():
        game.headers[key] = value
    if start.fen() != chess.STARTING_FEN:
        game.headers["FEN"] = start.fen()
        game.headers["SetUp"] = "1"
    return str(game)


def parse_tags(data: Any) -> dict[str, str]:
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise BadRequest("tags must be an object")
    tags = {}
    for key, value in data.items():
        if key not in PGN_TAGS:
            raise BadRequest(f"unknown PGN tag {key!r} (allowed: {', '.join(PGN_TAGS)})")
        if not isinstance(value, str) or len(value) > MAX_TAG_CHARS or any(c in value for c in '"\\\n\r'):
            raise BadRequest(f"PGN tag {key} must be plain text of at most {MAX_TAG_CHARS} characters")
        tags[key] = value
    return tags


def describe(start: chess.Board, board: chess.Board, tags: dict[str, str] | None = None,
             flagged: chess.Color | None = None) -> dict[str, Any]:
    """What the page needs to draw ``board`` (reached from ``start``) and its move list."""
    outcome = outcome_of(board)
    if outcome is None and flagged is not None:
        outcome = flag_outcome(board, flagged)
    tags = dict(tags or {})
    if outcome is not None:
        tags.setdefault("Result", outcome[0])
        tags.setdefault("Termination", outcome[1])
    king = board.king(board.turn)
    last = board.move_stack[-1] if board.move_stack else None
    return {
        "fen": board.fen(),
        "turn": "w" if board.turn == chess.WHITE else "b",
        "legal": [] if outcome is not None else [m.uci() for m in board.legal_moves],
        "check": chess.square_name(king) if board.is_check() and king is not None else None,
        "last": last.uci() if last is not None else None,
        "san": sans(start, board.move_stack),
        "start": start.fen(),
        "ply": len(board.move_stack),
        "outcome": None if outcome is None else {"result": outcome[0], "reason": outcome[1]},
        "pgn": pgn_text(start, board, tags),
    }
