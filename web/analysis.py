"""The analyse page's WebSocket: MultiPV lines pushed while the engine thinks, and a game's review.

The page sends ``{"type": "analyse", ...}``, ``{"type": "review", ...}`` or ``{"type": "stop"}``;
a new request stops the one before. Each runs for a bounded time on one engine of the pool.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from typing import Any

import chess
import chess.engine
from aiohttp import WSMsgType, web

from web.engines import POOL_KEY, EngineDied, EnginePool, EnginesBusy
from web.play import game_board, score_text, score_value
from web.validation import (
    MAX_ANALYSIS_S,
    MAX_HASH_MB,
    MAX_MULTIPV,
    MAX_THREADS,
    BadRequest,
    bounded,
)

PUSH_EVERY_S = 0.25  # at most four updates a second reach the page
PV_SHOWN = 12  # plies of each line sent to the page
REVIEW_TIME_RANGE = (0.02, 2.0)


def analysis_options(data: dict[str, Any]) -> tuple[int, dict[str, Any], float]:
    """MultiPV, the engine options (Threads, Hash, full strength) and the time limit, all bounded."""
    multipv = int(bounded(data, "multipv", 1, MAX_MULTIPV, 3))
    threads = int(bounded(data, "threads", 1, MAX_THREADS, 1))
    hash_mb = int(bounded(data, "hash", 1, MAX_HASH_MB, 16))
    seconds = bounded(data, "seconds", 0.1, MAX_ANALYSIS_S, MAX_ANALYSIS_S)
    return multipv, {"Threads": threads, "Hash": hash_mb, "UCI_LimitStrength": False, "Skill Level": 20,
                     "UCI_AnalyseMode": True}, seconds


def lines_message(board: chess.Board, infos: list[chess.engine.InfoDict], elapsed: float) -> dict[str, Any]:
    lines = []
    for info in infos:
        score = info.get("score")
        pv = info.get("pv") or []
        if score is None or not pv:
            continue
        lines.append({"multipv": info.get("multipv", 1), "score": score_text(score), "value": score_value(score),
                      "pv": board.variation_san(pv[:PV_SHOWN]), "first": pv[0].uci()})
    main = infos[0] if infos else {}
    nodes = main.get("nodes")
    nps = main.get("nps") or (int(nodes / elapsed) if nodes and elapsed > 0 else None)
    return {"type": "info", "depth": main.get("depth"), "seldepth": main.get("seldepth"), "nodes": nodes,
            "nps": nps, "lines": lines}


async def analyse(pool: EnginePool, data: dict[str, Any], ws: web.WebSocketResponse) -> None:
    _, board = game_board(data)
    if board.is_game_over():
        await ws.send_json({"type": "done", "note": "the game is over in this position"})
        return
    multipv, options, seconds = analysis_options(data)
    started = time.monotonic()
    last_push = 0.0
    async with pool.engine(options) as engine:
        with await engine.analysis(board, chess.engine.Limit(time=seconds), multipv=multipv) as running:
            async for _ in running:
                now = time.monotonic()
                if now - last_push >= PUSH_EVERY_S and running.multipv and "pv" in running.multipv[0]:
                    last_push = now
                    await ws.send_json(lines_message(board, running.multipv, now - started))
            final = list(running.multipv)
    await ws.send_json(lines_message(board, final, time.monotonic() - started) | {"final": True})
    await ws.send_json({"type": "done"})


async def review(pool: EnginePool, data: dict[str, Any], ws: web.WebSocketResponse) -> None:
    """Score every position of the posted game, pushing each score as it comes (White's view)."""
    start, board = game_board(data)
    per_move = bounded(data, "seconds", *REVIEW_TIME_RANGE, 0.1)
    moves = list(board.move_stack)
    position = start.copy()
    async with pool.engine({"UCI_LimitStrength": False, "Skill Level": 20, "Threads": 1}) as engine:
        for ply in range(len(moves) + 1):
            if position.is_game_over():
                outcome = position.outcome()
                value = 0.0 if outcome is None or outcome.winner is None else (100.0 if outcome.winner else -100.0)
                text = "1/2" if value == 0 else ("#" if value > 0 else "#-")
            else:
                info = await engine.analyse(position, chess.engine.Limit(time=per_move))
                score = info.get("score")
                value = score_value(score) if score is not None else 0.0
                text = score_text(score) if score is not None else "?"
            await ws.send_json({"type": "review", "ply": ply, "value": value, "score": text})
            if ply < len(moves):
                position.push(moves[ply])
    await ws.send_json({"type": "done", "review": True})


async def socket(request: web.Request) -> web.WebSocketResponse:
    """One page's analysis connection: at most one job at a time, each stopping the one before."""
    pool = request.app[POOL_KEY]
    ws = web.WebSocketResponse(heartbeat=30.0, max_msg_size=512 * 1024)
    await ws.prepare(request)
    job: asyncio.Task[None] | None = None

    async def run(kind: str, data: dict[str, Any]) -> None:
        try:
            await (analyse if kind == "analyse" else review)(pool, data, ws)
        except (BadRequest, EnginesBusy) as err:
            await ws.send_json({"type": "error", "error": str(err)})
        except EngineDied as err:
            await ws.send_json({"type": "error", "error": str(err), "engine_died": True})
        except ConnectionResetError:
            pass

    async for message in ws:
        if message.type != WSMsgType.TEXT:
            continue
        if job is not None and not job.done():
            job.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await job
        try:
            data = json.loads(message.data)
        except ValueError:
            await ws.send_json({"type": "error", "error": "the message is not JSON"})
            continue
        kind = data.get("type") if isinstance(data, dict) else None
        if kind == "stop":
            await ws.send_json({"type": "done", "stopped": True})
        elif kind in ("analyse", "review"):
            job = asyncio.create_task(run(kind, data))
        else:
            await ws.send_json({"type": "error", "error": f"unknown request type {kind!r} "
                                                          f"(analyse, review or stop)"})
    if job is not None:
        job.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await job
    return ws
