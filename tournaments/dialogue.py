"""``-log FILE``: the whole engine dialogue of a game, from python-chess's own log of every line.

python-chess logs each line it sends (``<<``) and receives (``>>``) on the
``chess.engine`` logger with the protocol object as the first argument; a
handler that keeps only the records of this game's two engines gives the
game's dialogue, even when several games run at once in one process.
"""

from __future__ import annotations

import logging
import time
from types import TracebackType

import chess

from tournaments.engines import EngineProcess

LOGGER = logging.getLogger("chess.engine")


class DialogueRecorder(logging.Handler):
    """Collects the lines exchanged with the engines of one game while it is installed."""

    def __init__(self, engines: dict[chess.Color, EngineProcess]) -> None:
        super().__init__(logging.DEBUG)
        self.engines = engines
        self.lines: list[str] = []
        self.start = time.monotonic()

    def emit(self, record: logging.LogRecord) -> None:
        args = record.args if isinstance(record.args, tuple) else ()
        if len(args) != 2 or record.msg not in ("%s: << %s", "%s: >> %s"):
            return
        # Engines are looked up at each line: a crashed engine is restarted with a new protocol object.
        for color, engine in self.engines.items():
            if engine.protocol is not None and args[0] is engine.protocol:
                direction = "<" if "<<" in record.msg else ">"
                who = f"{'White' if color == chess.WHITE else 'Black'} {engine.config.name}"
                self.lines.append(f"{time.monotonic() - self.start:9.3f} {who} {direction} {args[1]}")
                return

    def __enter__(self) -> DialogueRecorder:
        if LOGGER.getEffectiveLevel() > logging.DEBUG:
            LOGGER.setLevel(logging.DEBUG)
        LOGGER.addHandler(self)
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        LOGGER.removeHandler(self)

    def text(self) -> str:
        return "\n".join(self.lines)
