"""Engine processes: start, set up, check, and kill them.

Every call that waits on an engine has a deadline, because an engine that
stops answering must cost it the game, not stop the run.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import re
import signal
import sys
from dataclasses import dataclass, field
from typing import Any

import chess
import chess.engine

from tournaments.config import EngineConfig


def _die_with_parent() -> None:
    """In the child, before exec: ask Linux to kill the engine when the runner dies.

    A runner killed with SIGKILL cannot clean up, and a hung engine would
    otherwise keep a core busy for ever.
    """
    with contextlib.suppress(Exception):
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # 1 = PR_SET_PDEATHSIG


_NO_SETBOARD = re.compile(r"(?<=\s)setboard=0(?=\s|$)")


class XBoardEngine(chess.engine.XBoardProtocol):
    """python-chess's xboard protocol, extended to engines that declare ``setboard=0`` (Fairy-Max).

    python-chess refuses such engines at the handshake, although it only sends
    ``setboard`` for a game whose root is not the standard start position. This
    class lets the handshake pass, remembers the truth in ``can_setboard``, and
    refuses (with an ``EngineError``) any game that would need ``setboard``; the
    runner checks its openings before the first game so that this never happens.
    """

    def __init__(self) -> None:
        super().__init__()
        self.can_setboard = True

    def _line_received(self, line: str) -> None:
        if line.startswith("feature ") and _NO_SETBOARD.search(line):
            self.can_setboard = False
            line = _NO_SETBOARD.sub("setboard=1", line)
        super()._line_received(line)

    def _new(self, board: chess.Board, *args: Any, **kwargs: Any) -> None:
        # python-chess's private signature varies between releases (1.11 added `opponent`):
        # only the board is read here, the rest is passed through untouched.
        if not self.can_setboard and (board.chess960 or board.root().fen() != chess.STARTING_FEN):
            raise chess.engine.EngineError(
                f"engine cannot set up {board.root().fen()!r}: it declares setboard=0, so games must "
                f"start from the standard start position")
        super()._new(board, *args, **kwargs)


async def popen_xboard(command: list[str], **popen_args: object) -> tuple[asyncio.SubprocessTransport, XBoardEngine]:
    """``chess.engine.popen_xboard`` with ``XBoardEngine``."""
    transport, protocol = await XBoardEngine.popen(command, **popen_args)  # type: ignore[arg-type]
    try:
        await protocol.initialize()
    except BaseException:
        transport.close()
        raise
    return transport, protocol


class EngineFault(Exception):
    """An engine misbehaved; ``kind`` says how (crash, stall, illegal, malformed, flag)."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


class SetupError(Exception):
    """An engine cannot be used as configured (bad command, unknown option)."""


def _option_value(option: chess.engine.Option, raw: str) -> chess.engine.ConfigValue:
    """Turn a string from the command line into the type the engine declared, or raise ``SetupError``."""
    try:
        if option.type == "check":
            if raw.lower() not in ("true", "false", "1", "0", "on", "off"):
                raise ValueError(raw)
            value: chess.engine.ConfigValue = raw.lower() in ("true", "1", "on")
        elif option.type == "spin":
            value = int(raw)
        else:
            value = raw
        option.parse(value)
    except (ValueError, chess.engine.EngineError) as err:
        raise SetupError(f"bad value {raw!r} for option {option.name!r}: {err}") from None
    return value


class EngineProcess:
    """One running engine, driven through python-chess's asyncio protocol objects."""

    def __init__(self, config: EngineConfig) -> None:
        self.config = config
        self.transport: asyncio.SubprocessTransport | None = None
        self.protocol: chess.engine.Protocol | None = None

    @property
    def alive(self) -> bool:
        return self.protocol is not None and not self.protocol.returncode.done()

    async def start(self, timeout: float) -> None:
        """Start the process and finish the handshake and options, within ``timeout`` seconds.

        Raises ``SetupError`` for a bad command or option, ``EngineFault`` for an
        engine that dies or stays silent during the handshake.
        """
        popen = chess.engine.popen_uci if self.config.protocol == "uci" else popen_xboard
        kwargs: dict[str, object] = {"cwd": self.config.workdir} if self.config.workdir else {}
        if sys.platform.startswith("linux"):
            kwargs["preexec_fn"] = _die_with_parent
        try:
            # setpgrp: a Ctrl-C meant for the runner should not kill the engines mid-move.
            self.transport, self.protocol = await asyncio.wait_for(
                popen(self.config.command, setpgrp=True, **kwargs), timeout)
        except (FileNotFoundError, PermissionError, NotADirectoryError) as err:
            raise SetupError(f"cannot start {self.config.command!r}: {err}") from None
        except asyncio.TimeoutError:
            raise EngineFault("stall", f"no answer to {self.handshake_word()} within {timeout:g}s") from None
        except chess.engine.EngineTerminatedError as err:
            raise EngineFault("crash", f"died during {self.handshake_word()}: {err}") from None
        except chess.engine.EngineError as err:
            raise EngineFault("malformed", f"bad handshake: {err}") from None
        await self.configure(timeout)

    @property
    def can_setboard(self) -> bool:
        """False for an xboard engine that can only play games from the standard start position."""
        return not isinstance(self.protocol, XBoardEngine) or self.protocol.can_setboard

    def handshake_word(self) -> str:
        return "uci" if self.config.protocol == "uci" else "xboard/protover"

    def check_options(self) -> dict[str, chess.engine.ConfigValue]:
        """Typed option values, or ``SetupError`` for an option the engine does not declare."""
        assert self.protocol is not None
        declared = self.protocol.options
        values: dict[str, chess.engine.ConfigValue] = {}
        for name, raw in self.config.options.items():
            if name not in declared:
                known = ", ".join(sorted(declared)) or "none"
                raise SetupError(f"engine {self.config.name!r} has no option {name!r} (it declares: {known})")
            values[declared[name].name] = _option_value(declared[name], raw)
        return values

    async def configure(self, timeout: float) -> None:
        assert self.protocol is not None
        values = self.check_options()
        try:
            if values:
                await asyncio.wait_for(self.protocol.configure(values), timeout)
            await self.ping(timeout)
        except chess.engine.EngineError as err:
            raise SetupError(f"engine {self.config.name!r} refused its options: {err}") from None

    async def ping(self, timeout: float) -> None:
        """``isready``/``readyok`` (or xboard ``ping``/``pong``) within ``timeout`` seconds."""
        assert self.protocol is not None
        word = "isready" if self.config.protocol == "uci" else "ping"
        try:
            await asyncio.wait_for(self.protocol.ping(), timeout)
        except asyncio.TimeoutError:
            raise EngineFault("stall", f"no answer to {word} within {timeout:g}s") from None
        except chess.engine.EngineTerminatedError as err:
            raise EngineFault("crash", f"died before answering {word}: {err}") from None

    async def new_game(self, game_id: object, timeout: float) -> None:
        """Tell the engine a new game starts, before its clock runs.

        python-chess would otherwise send ``ucinewgame`` and wait for ``readyok``
        inside the first ``play`` call, charging that wait to the engine's clock.
        """
        assert self.protocol is not None
        protocol = self.protocol
        if isinstance(protocol, chess.engine.UciProtocol) and hasattr(protocol, "first_game"):
            protocol.send_line("ucinewgame")
            protocol.game = game_id
            protocol.first_game = False
        await self.ping(timeout)

    async def kill(self) -> None:
        """Stop the process at once (hung or crashed engines, and the end of the run on errors)."""
        if self.transport is not None:
            killpg = getattr(os, "killpg", None)  # POSIX only: Windows has no process groups to kill
            if killpg is not None:
                with contextlib.suppress(ProcessLookupError, OSError):
                    # The engine runs in its own process group: kill the group, so helpers die with it.
                    killpg(self.transport.get_pid(), getattr(signal, "SIGKILL", signal.SIGTERM))
            with contextlib.suppress(ProcessLookupError, OSError):
                self.transport.kill()
            if self.protocol is not None:
                with contextlib.suppress(asyncio.TimeoutError, Exception):
                    await asyncio.wait_for(asyncio.shield(self.protocol.returncode), 5)
            self.transport.close()
        self.transport = None
        self.protocol = None

    async def quit(self, timeout: float = 2.0) -> None:
        """Ask the engine to quit politely, and kill it if it does not."""
        if self.protocol is not None and self.alive:
            with contextlib.suppress(asyncio.TimeoutError, Exception):
                await asyncio.wait_for(self.protocol.quit(), timeout)
        await self.kill()


@dataclass
class ProbeResult:
    """What the start-up check learnt about an engine."""

    fault: EngineFault | None = None  # it stalled or died; nothing else is known then
    options: dict[str, chess.engine.Option] = field(default_factory=dict)
    can_setboard: bool = True  # False: it can only start games from the standard start position


async def probe(config: EngineConfig, timeout: float) -> ProbeResult:
    """Start an engine once before the run: ``SetupError`` propagates, a fault is returned."""
    engine = EngineProcess(config)
    try:
        await engine.start(timeout)
        assert engine.protocol is not None
        return ProbeResult(None, dict(engine.protocol.options), engine.can_setboard)
    except EngineFault as fault:
        return ProbeResult(fault)
    finally:
        await engine.quit()


class EnginePool:
    """The engine processes of one game slot, kept alive between its games.

    Startup is paid once per slot rather than once per game; processes that the
    next game does not need are quit (they would idle and hold memory), and a
    process that faulted (killed by the game) is started afresh by the game.
    Both backends use it: the local runner has one per concurrent game, a Dask
    worker one per worker thread.
    """

    def __init__(self, configs: dict[str, EngineConfig], wait_ms: int = 0) -> None:
        self.configs = configs
        self.engines: dict[str, EngineProcess] = {}
        self.wait_ms = wait_ms  # -wait: a pause between this slot's games, for engines that need to settle
        self.games = 0

    async def for_game(self, white: str, black: str) -> dict[chess.Color, EngineProcess]:
        """The two processes of the next game, after the ``-wait`` pause if this is not the slot's first."""
        if self.games and self.wait_ms:
            await asyncio.sleep(self.wait_ms / 1000.0)
        self.games += 1
        for name in [n for n in self.engines if n not in (white, black)]:
            await self.engines.pop(name).quit()
        for name in (white, black):
            if name not in self.engines:
                self.engines[name] = EngineProcess(self.configs[name])
        return {chess.WHITE: self.engines[white], chess.BLACK: self.engines[black]}

    async def close(self) -> None:
        await asyncio.gather(*(e.quit() for e in self.engines.values()), return_exceptions=True)
        self.engines.clear()
