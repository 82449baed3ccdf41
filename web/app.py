"""The ``kestrel web`` application: the play and analyse pages, their JSON API and the analysis socket.

No endpoint reads or writes a file other than the packaged static assets; every input is
checked (``web.validation``) and refused with a message the page shows.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from importlib import resources
from pathlib import Path
from typing import Any

import chess
from aiohttp import web

from web import analysis, play
from web.engines import KESTREL_COMMAND, POOL_KEY, EngineDied, EnginePool, EnginesBusy
from web.positions import describe, parse_tags
from web.validation import ELO_RANGE, SKILL_RANGE, BadRequest, parse_pgn

MAX_BODY_BYTES = 512 * 1024
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def static_dir() -> Path:
    """The packaged assets (HTML, JS, CSS), served as they are."""
    return Path(str(resources.files("web") / "static"))


@web.middleware
async def errors(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Refused input becomes a 400 with its message; an engine failure a 503 that says it restarts."""
    try:
        return await handler(request)
    except BadRequest as err:
        return web.json_response({"error": str(err)}, status=400)
    except web.HTTPRequestEntityTooLarge:
        return web.json_response({"error": f"the request is too large (at most {MAX_BODY_BYTES // 1024} KB)"},
                                 status=413)
    except EnginesBusy as err:
        return web.json_response({"error": str(err)}, status=503)
    except EngineDied as err:
        return web.json_response({"error": str(err), "engine_died": True}, status=503)


async def body(request: web.Request) -> dict[str, Any]:
    try:
        data = await request.json()
    except (ValueError, UnicodeDecodeError):
        raise BadRequest("the request body is not JSON") from None
    if not isinstance(data, dict):
        raise BadRequest("the request body must be a JSON object")
    return data


async def position(request: web.Request) -> web.Response:
    """A game (start FEN and UCI moves) checked and described; ``flag`` says a side ran out of time."""
    data = await body(request)
    start, board = play.game_board(data)
    flag = data.get("flag")
    if flag not in (None, "w", "b"):
        raise BadRequest("flag must be w or b")
    flagged = None if flag is None else (chess.WHITE if flag == "w" else chess.BLACK)
    return web.json_response(describe(start, board, parse_tags(data.get("tags")), flagged))


async def load_pgn(request: web.Request) -> web.Response:
    """A PGN's first game as a start FEN and UCI moves, with the tags the page shows."""
    game = parse_pgn((await body(request)).get("pgn"))
    board = game.start.copy()
    for move in game.moves:
        board.push(move)
    return web.json_response({"start": game.start.fen(), "moves": [m.uci() for m in game.moves],
                              "headers": {k: v for k, v in game.headers.items() if k in ("White", "Black", "Result",
                                                                                          "Event", "Date")},
                              "position": describe(game.start, board)})


async def engine_move(request: web.Request) -> web.Response:
    return web.json_response(await play.engine_move(request.app[POOL_KEY], await body(request)))


async def draw_offer(request: web.Request) -> web.Response:
    return web.json_response(await play.draw_offer(request.app[POOL_KEY], await body(request)))


async def levels(request: web.Request) -> web.Response:
    """The levels the play page offers: the engine's own UCI_Elo and Skill Level ranges."""
    return web.json_response({"elo": list(ELO_RANGE), "skill": list(SKILL_RANGE)})


async def status(request: web.Request) -> web.Response:
    pool = request.app[POOL_KEY]
    return web.json_response({"engines": len(pool.processes), "limit": pool.limit, "deaths": pool.deaths})


def page(name: str) -> Handler:
    async def serve(request: web.Request) -> web.StreamResponse:
        return web.FileResponse(static_dir() / name, headers={"Cache-Control": "no-cache"})
    return serve


def create_app(engine_command: list[str] | None = None, max_engines: int = 3) -> web.Application:
    """The application; ``engine_command`` replaces Kestrel (the tests give it engines that misbehave)."""
    app = web.Application(client_max_size=MAX_BODY_BYTES, middlewares=[errors])
    pool = EnginePool(list(engine_command or KESTREL_COMMAND), max_engines)
    app[POOL_KEY] = pool

    async def close_pool(_: web.Application) -> None:
        await pool.close()

    app.on_cleanup.append(close_pool)
    app.router.add_get("/", page("play.html"))
    app.router.add_get("/play", page("play.html"))
    app.router.add_get("/analyse", page("analyse.html"))
    app.router.add_post("/api/position", position)
    app.router.add_post("/api/pgn", load_pgn)
    app.router.add_post("/api/move", engine_move)
    app.router.add_post("/api/draw", draw_offer)
    app.router.add_get("/api/status", status)
    app.router.add_get("/api/levels", levels)
    app.router.add_get("/ws/analyse", analysis.socket)
    app.router.add_static("/static", static_dir(), follow_symlinks=False)
    return app
