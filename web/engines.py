"""The engines behind the pages: Kestrel as UCI processes, a few at most, restarted when they die.

Each request borrows an idle engine (or starts one, up to ``limit``), sets the options it
needs, and gives it back; an engine that died is dropped, and the request is answered with
``EngineDied`` so that the page can say so; the next request starts a fresh process.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator, Mapping
from typing import Any

import chess.engine
from aiohttp import web

KESTREL_COMMAND = [sys.executable, "-m", "uci_engine"]
START_TIMEOUT_S = 30.0


class EngineDied(RuntimeError):
    """The engine process ended or failed while serving a request; it will be restarted."""


class EnginesBusy(RuntimeError):
    """Every engine is busy and no more may start."""


class EnginePool:
    """At most ``limit`` engine processes, shared by all requests."""

    def __init__(self, command: list[str], limit: int = 3, wait_s: float = 10.0) -> None:
        self.command = command
        self.limit = limit
        self.wait_s = wait_s
        self.idle: list[chess.engine.UciProtocol] = []
        self.slots = asyncio.Semaphore(limit)
        self.processes: set[chess.engine.UciProtocol] = set()
        self.deaths = 0  # engines that died while serving, since the server started

    async def _start(self) -> chess.engine.UciProtocol:
        try:
            _, protocol = await asyncio.wait_for(chess.engine.popen_uci(self.command), START_TIMEOUT_S)
        except (OSError, chess.engine.EngineError, asyncio.TimeoutError) as err:
            raise EngineDied(f"the engine did not start ({type(err).__name__}: {err})") from None
        self.processes.add(protocol)
        return protocol

    @contextlib.asynccontextmanager
    async def engine(self, options: Mapping[str, Any]) -> AsyncIterator[chess.engine.UciProtocol]:
        """An engine configured with ``options`` (those it does not declare are left out)."""
        try:
            await asyncio.wait_for(self.slots.acquire(), self.wait_s)
        except asyncio.TimeoutError:
            raise EnginesBusy(f"all {self.limit} engines are busy; try again in a moment") from None
        protocol: chess.engine.UciProtocol | None = None
        try:
            protocol = self.idle.pop() if self.idle else await self._start()
            try:
                await protocol.configure({k: v for k, v in options.items() if k in protocol.options})
                yield protocol
            except (chess.engine.EngineTerminatedError, chess.engine.EngineError) as err:
                await self._drop(protocol)
                protocol = None
                self.deaths += 1
                raise EngineDied(f"the engine stopped while thinking ({err}); a new one is started "
                                 f"for the next request") from None
            except asyncio.CancelledError:
                # python-chess stops the search of a cancelled command and runs the next one after it.
                raise
            except BaseException:
                # Anything else may leave the process in an unknown state: do not reuse it.
                await self._drop(protocol)
                protocol = None
                raise
        finally:
            if protocol is not None:
                if protocol.returncode.done():
                    await self._drop(protocol)
                else:
                    self.idle.append(protocol)
            self.slots.release()

    async def _drop(self, protocol: chess.engine.UciProtocol) -> None:
        self.processes.discard(protocol)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(protocol.quit(), 2.0)
        transport = protocol.transport
        if transport is not None:
            with contextlib.suppress(Exception):
                transport.kill()

    async def close(self) -> None:
        for protocol in list(self.processes):
            await self._drop(protocol)
        self.idle.clear()


POOL_KEY = web.AppKey("pool", EnginePool)
