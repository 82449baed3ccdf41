"""The live page of a tournament run (``python -m tournaments ... -web PORT``): read-only, pushed by SSE.

``LiveRun`` is a ``tournaments.observe.RunObserver``: the runner tells it of moves and finished
games (from the event loop, or from Dask's threads), and it keeps what the page shows: standings
and crosstable, the headline Elo with its interval and LOS, the pentanomial counts, the SPRT's
LLR after every game, the boards in progress and the PGN of the games finished in this session.
The page has no control: the server answers GET requests only.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import math
import threading
import time
from collections import OrderedDict
from typing import Any

from aiohttp import web

from tournaments.config import TournamentConfig
from tournaments.observe import MoveUpdate
from tournaments.sprt import sprt_status
from tournaments.state import FinishedGame
from tournaments.stats import RunningTally, Tally, tally_results
from web.app import static_dir

PGNS_KEPT = 500  # the PGN of the latest games finished in this session; older ones are in the run's file
FINISHED_SHOWN = 40
PUSH_EVERY_S = 0.3  # at most about three snapshots a second per page
KEEPALIVE_S = 15.0


def finite(value: float) -> float | None:
    """JSON has no inf or nan: None stands for them."""
    return value if math.isfinite(value) else None


def tally_dict(t: Tally) -> dict[str, Any]:
    elo, low, high = t.elo_interval()
    return {"games": t.games, "wins": t.wins, "losses": t.losses, "draws": t.draws, "score": t.score,
            "elo": finite(elo) if t.games else None, "low": finite(low), "high": finite(high),
            "error": finite(t.elo_error()), "los": t.los(), "pentanomial": list(t.pentanomial)}


class LiveRun:
    """What the live page shows of one run, kept up to date by the runner's calls."""

    def __init__(self, config: TournamentConfig, games: list[FinishedGame], total: int) -> None:
        self.config = config
        self.games = games  # the run's own list (the runner appends to it); read under the lock
        self.total = total
        self.lock = threading.Lock()
        self.playing: dict[int, dict[str, Any]] = {}
        self.pgns: OrderedDict[int, str] = OrderedDict()
        self.llr: list[float] = []
        self.first = config.engines[0].name
        self._tally = RunningTally(self.first)
        self._seen: list[FinishedGame] = []
        self.finished_run = False
        self.loop: asyncio.AbstractEventLoop | None = None
        self.changed = asyncio.Event()
        self.version = 0
        with self.lock:
            for game in games:
                self._count(game)

    def _count(self, game: FinishedGame) -> None:
        """Extend the LLR path by one game (the pentanomial counts only pairs already complete)."""
        self._seen.append(game)
        s = self.config.sprt
        if s is not None:
            pentanomial = self._tally.update(self._seen).pentanomial
            self.llr.append(sprt_status(s.elo0, s.elo1, s.alpha, s.beta, pentanomial, s.model).llr)

    # --- RunObserver: called by the runner, maybe from another thread

    def moved(self, update: MoveUpdate) -> None:
        with self.lock:
            self.playing[update.index] = update.as_dict() | {"updated": time.time()}
        self._notify()

    def finished(self, game: FinishedGame, pgn: str) -> None:
        with self.lock:
            self.playing.pop(game.index, None)
            self.pgns[game.index] = pgn
            while len(self.pgns) > PGNS_KEPT:
                self.pgns.popitem(last=False)
            self._count(game)
        self._notify()

    def close(self) -> None:
        with self.lock:
            self.finished_run = True
            self.playing.clear()
        self._notify()

    def _notify(self) -> None:
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            self._bump()
        else:
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(self._bump)

    def _bump(self) -> None:
        self.version += 1
        self.changed.set()
        self.changed = asyncio.Event()

    # --- what the page reads

    def snapshot(self) -> dict[str, Any]:
        with self.lock:
            games = list(self.games)
            playing = sorted(self.playing.values(), key=lambda g: g["index"])
            llr = list(self.llr)
            with_pgn = set(self.pgns)
            done = self.finished_run
        records = [(g.pair, g.white, g.black, g.result) for g in games]
        names = [e.name for e in self.config.engines]
        standings = []
        for name in names:
            row = tally_dict(tally_results(records, name))
            standings.append({"name": name} | row)
        standings.sort(key=lambda r: -r["score"] if r["games"] else 0.0)
        cross: dict[str, dict[str, str]] = {a: {} for a in names}
        for a, b in itertools.permutations(names, 2):
            t = tally_results(records, a, [b])
            if t.games:
                cross[a][b] = f"{t.wins + 0.5 * t.draws:g}/{t.games}"
        opponent = names[1] if len(names) == 2 else "the field"
        headline = tally_dict(tally_results(records, self.first)) | {"name": self.first, "opponent": opponent}
        sprt = None
        s = self.config.sprt
        if s is not None:
            status = sprt_status(s.elo0, s.elo1, s.alpha, s.beta, headline["pentanomial"], s.model)
            sprt = {"elo0": s.elo0, "elo1": s.elo1, "alpha": s.alpha, "beta": s.beta, "model": s.model,
                    "llr": llr[-1] if llr else status.llr, "lower": status.lower, "upper": status.upper,
                    "decision": status.decision, "path": llr}
        finished = [{"index": g.index, "round": g.round, "white": g.white, "black": g.black, "result": g.result,
                     "reason": g.reason, "plies": g.plies, "pgn": g.index in with_pgn}
                    for g in games[-FINISHED_SHOWN:]][::-1]
        return {"event": self.config.event, "kind": self.config.kind, "total": self.total, "done": len(games),
                "running": len(playing), "finished_run": done, "engines": names, "standings": standings,
                "crosstable": cross, "headline": headline, "sprt": sprt, "playing": playing, "finished": finished}

    def pgn(self, index: int) -> str | None:
        with self.lock:
            return self.pgns.get(index)


LIVE_KEY = web.AppKey("live", LiveRun)


async def events(request: web.Request) -> web.StreamResponse:
    """Server-sent events: a snapshot now, then one after each change (a few a second at most)."""
    live = request.app[LIVE_KEY]
    response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache",
                                           "X-Accel-Buffering": "no"})
    await response.prepare(request)
    try:
        while True:
            waiting = live.changed
            await response.write(f"data: {json.dumps(live.snapshot(), separators=(',', ':'))}\n\n".encode())
            if live.finished_run:
                break  # the last snapshot is sent: the page stops listening
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(waiting.wait(), KEEPALIVE_S)
            if not live.finished_run:
                await asyncio.sleep(PUSH_EVERY_S)
    except (ConnectionResetError, asyncio.CancelledError):
        pass
    return response


async def state(request: web.Request) -> web.Response:
    return web.json_response(request.app[LIVE_KEY].snapshot())


async def pgn(request: web.Request) -> web.Response:
    live = request.app[LIVE_KEY]
    try:
        index = int(request.match_info["number"]) - 1
    except ValueError:
        raise web.HTTPNotFound(text="no such game") from None
    text = live.pgn(index)
    if text is None:
        raise web.HTTPNotFound(text=f"game {index + 1} has no PGN here: it is not finished, or it was played "
                                    f"before this session (the run's PGN file has it)")
    return web.Response(text=text, content_type="application/x-chess-pgn", charset="utf-8")


async def page(_: web.Request) -> web.FileResponse:
    return web.FileResponse(static_dir() / "live.html", headers={"Cache-Control": "no-cache"})


def create_live_app(live: LiveRun) -> web.Application:
    app = web.Application()
    app[LIVE_KEY] = live
    app.router.add_get("/", page)
    app.router.add_get("/events", events)
    app.router.add_get("/state", state)
    app.router.add_get("/pgn/{number}", pgn)
    app.router.add_static("/static", static_dir(), follow_symlinks=False)
    return app


async def start_live_server(live: LiveRun, port: int, host: str = "127.0.0.1") -> tuple[web.AppRunner, int]:
    """Serve the live page from the running loop; returns the runner (to clean up) and the bound port."""
    live.loop = asyncio.get_running_loop()
    live.changed = asyncio.Event()
    runner = web.AppRunner(create_live_app(live), handle_signals=False, shutdown_timeout=1.0)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    await site.start()
    bound = runner.addresses[0][1] if runner.addresses else port
    return runner, int(bound)
