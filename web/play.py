"""The play page's server side: the engine's move at a chosen level and clock, and draw offers."""

from __future__ import annotations

import asyncio
from typing import Any

import chess
import chess.engine

from web.engines import EngineDied, EnginePool
from web.validation import (
    MAX_CLOCK_S,
    MAX_INCREMENT_S,
    BadRequest,
    bounded,
    parse_fen,
    parse_level,
    replay,
)

DEFAULT_MOVE_S = 1.0  # thinking time per move without a clock
MAX_MOVE_S = 30.0  # no engine move takes longer, whatever the clock
DRAW_CHECK_S = 0.3
DRAW_ACCEPT_CP = -50  # the engine takes a draw when it thinks it stands at least this much worse
ANSWER_MARGIN_S = 10.0


def game_board(data: dict[str, Any]) -> tuple[chess.Board, chess.Board]:
    """The start position (``start``: a FEN, or none for the standard start) and the position after ``moves``."""
    start_fen = data.get("start")
    start = chess.Board() if start_fen in (None, "") else parse_fen(start_fen)
    return start, replay(start, data.get("moves", []))


def engine_limit(data: dict[str, Any]) -> chess.engine.Limit:
    """A clock limit (``clock``: white and black seconds left, increment) or a fixed time, both bounded."""
    clock = data.get("clock")
    if clock is None:
        return chess.engine.Limit(time=bounded(data, "movetime", 0.05, MAX_MOVE_S, DEFAULT_MOVE_S))
    if not isinstance(clock, dict):
        raise BadRequest("clock must be an object with white, black and increment seconds")
    white = bounded(clock, "white", 0.0, MAX_CLOCK_S, 0.0)
    black = bounded(clock, "black", 0.0, MAX_CLOCK_S, 0.0)
    increment = bounded(clock, "increment", 0.0, MAX_INCREMENT_S, 0.0)
    return chess.engine.Limit(white_clock=white, black_clock=black, white_inc=increment, black_inc=increment,
                              time=MAX_MOVE_S)


async def engine_move(pool: EnginePool, data: dict[str, Any]) -> dict[str, Any]:
    """The engine's move in the posted game, and its score from White's view."""
    start, board = game_board(data)
    if board.is_game_over(claim_draw=True):
        raise BadRequest("the game is over: the engine has no move to make")
    level = parse_level(data.get("level"))
    limit = engine_limit(data)
    async with pool.engine(level.options()) as engine:
        try:
            result = await asyncio.wait_for(engine.play(board, limit, info=chess.engine.INFO_SCORE),
                                            MAX_MOVE_S + ANSWER_MARGIN_S)
        except asyncio.TimeoutError:
            raise EngineDied(f"the engine gave no move within {MAX_MOVE_S + ANSWER_MARGIN_S:g} s") from None
    if result.move is None or result.move not in board.legal_moves:
        raise EngineDied(f"the engine answered {result.move} which is not a legal move here")
    score = result.info.get("score")
    san = board.san(result.move)
    return {"move": result.move.uci(), "san": san, "score": score_text(score) if score else None}


async def draw_offer(pool: EnginePool, data: dict[str, Any]) -> dict[str, Any]:
    """Whether the engine accepts a draw: only when it thinks it stands worse."""
    _, board = game_board(data)
    if board.is_game_over(claim_draw=True):
        raise BadRequest("the game is over")
    color = data.get("engine_color")
    if color not in ("w", "b"):
        raise BadRequest("engine_color must be w or b")
    async with pool.engine({"UCI_LimitStrength": False, "Skill Level": 20}) as engine:
        info = await asyncio.wait_for(engine.analyse(board, chess.engine.Limit(time=DRAW_CHECK_S)),
                                      DRAW_CHECK_S + ANSWER_MARGIN_S)
    score = info.get("score")
    engine_side = chess.WHITE if color == "w" else chess.BLACK
    own = score.pov(engine_side).score(mate_score=100_000) if score is not None else 0
    accepted = own is not None and own <= DRAW_ACCEPT_CP
    return {"accepted": accepted, "reason": "the engine accepts the draw" if accepted else
            "the engine declines the draw"}


def score_text(score: chess.engine.PovScore) -> str:
    """White's view: ``+0.35`` or ``#-3``."""
    white = score.white()
    mate = white.mate()
    if mate is not None:
        return f"#{mate}"
    cp = white.score()
    return f"{(cp or 0) / 100:+.2f}"


def score_value(score: chess.engine.PovScore) -> float:
    """White's view in pawns, mates as +-100, for bars and graphs."""
    white = score.white()
    mate = white.mate()
    if mate is not None:
        return 100.0 if mate > 0 else -100.0
    return (white.score() or 0) / 100
