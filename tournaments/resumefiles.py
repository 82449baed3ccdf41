"""Before ``-resume`` cuts the PGN, EPD and log files back, check that each cut falls between two games.

The state records each file's length after its last recorded game. A state or
journal of another run, or a file edited or replaced since, would make that
length fall in the middle of a game, and cutting there glues the next game onto
half of one. So the bytes are read first: the PGN must end, at the recorded
length, with the state's last game (its Round, White, Black and Result tags,
and its result as the movetext's last word), followed by nothing or by the
start of another game; the log's last entry there must be that game's; the EPD
must end a line there. Anything else refuses the resume (exit status 2) and
nothing is cut.
"""

from __future__ import annotations

import os
import re
from typing import BinaryIO

from tournaments.config import ConfigError, TournamentConfig
from tournaments.state import FinishedGame, RunState

# How far back from the recorded length a game's first tag is looked for: a game with every per-move PGN
# field (pv= above all) can be long, but one bigger than this is not a game this runner wrote.
SEARCH_LIMIT = 16 << 20
_CHUNK = 1 << 16
_TAG = re.compile(rb'^\[(\w+) "((?:[^"\\]|\\.)*)"\]\s*$')
_TODO = ("-resume would cut it in the middle of a game: restore the file this run wrote, or start a new run "
         "with another -pgnout or -state")


def _tail_start(f: BinaryIO, end: int, marker: bytes) -> int | None:
    """The offset of the last ``marker`` that starts a line before ``end`` (None if none within the limit)."""
    position = end
    floor = max(0, end - SEARCH_LIMIT)
    tail = b""
    while position > floor:
        step = min(_CHUNK, position - floor)
        position -= step
        f.seek(position)
        tail = f.read(step) + tail
        at = tail.rfind(b"\n" + marker)
        if at >= 0:
            return position + at + 1
        if position == 0 and tail.startswith(marker):
            return 0
    return None


def _read(path: str, start: int, end: int) -> bytes:
    with open(path, "rb") as f:
        f.seek(start)
        return f.read(end - start)


def _size(path: str, what: str, offset: int) -> int:
    """The file's size; a file shorter than the recorded length is refused."""
    try:
        size = os.stat(path).st_size
    except FileNotFoundError:
        size = 0
    except OSError as err:
        raise ConfigError(f"cannot resume: cannot read the {what} file {path} ({err.strerror or err})") from None
    if size < offset:
        raise ConfigError(f"cannot resume: the {what} file {path} holds {size} bytes, fewer than the {offset} its "
                          f"state records (replaced, or it never reached the disk before the machine stopped?): "
                          f"restore it, or start a new run with another -pgnout or -state")
    return size


def check_pgn(path: str, offset: int, last: FinishedGame | None) -> None:
    """Raise ``ConfigError`` unless ``path`` holds ``last`` ending at ``offset``, and a game or nothing after."""
    size = _size(path, "PGN", offset)
    if size > offset and not _read(path, offset, offset + 1) == b"[":
        raise ConfigError(f"cannot resume: {path} has no game starting at byte {offset}, where its state's last "
                          f"game ends; {_TODO}")
    if last is None:
        return  # no game recorded yet: what comes before is another run's (append=true), left as it is
    who = f"game {last.index + 1} ({last.white} - {last.black}, {last.result})"
    with open(path, "rb") as f:
        start = _tail_start(f, offset, b"[Event ")
    if start is None:
        raise ConfigError(f"cannot resume: {path} has no game ending at byte {offset}, where its state's last "
                          f"{who} should end; {_TODO}")
    game = _read(path, start, offset)
    head, _, moves = game.partition(b"\n\n")
    tags: dict[str, str] = {}
    for line in head.split(b"\n"):
        if (match := _TAG.match(line)) is not None:
            tags[match.group(1).decode("utf-8", "replace")] = match.group(2).decode("utf-8", "replace")
    expected = {"Round": f"{last.round}.{last.index + 1}", "White": last.white, "Black": last.black,
                "Result": last.result}
    found = {key: tags.get(key) for key in expected}
    words = moves.split()
    if found != expected or not game.endswith(b"\n\n") or not words or words[-1].decode("utf-8", "replace") != \
            last.result:
        shown = ", ".join(f"{key} {value!r}" for key, value in found.items())
        raise ConfigError(f"cannot resume: the game ending at byte {offset} of {path} is not the state's last "
                          f"{who} (it has {shown}): the PGN, or the state, is another run's; {_TODO}")


def check_log(path: str, offset: int, last: FinishedGame | None) -> None:
    """Raise ``ConfigError`` unless the ``-log`` entry ending at ``offset`` is ``last``'s."""
    size = _size(path, "log", offset)
    if size > offset and _read(path, offset, offset + 7) != b"# game "[:size - offset]:
        raise ConfigError(f"cannot resume: the log {path} has no game starting at byte {offset}; {_TODO}")
    if last is None:
        return
    with open(path, "rb") as f:
        start = _tail_start(f, offset, b"# game ")
    expected = f"# game {last.index + 1} (round {last.round}): {last.white} - {last.black}, {last.result}\n"
    if start is None or not _read(path, start, offset).startswith(expected.encode("utf-8")):
        raise ConfigError(f"cannot resume: the log entry ending at byte {offset} of {path} is not the state's "
                          f"last game ({expected.strip()!r}); {_TODO}")


def check_epd(path: str, offset: int) -> None:
    """Raise ``ConfigError`` unless ``offset`` ends a line of the ``-epdout`` file."""
    _size(path, "EPD", offset)
    if offset > 0 and _read(path, offset - 1, offset) != b"\n":
        raise ConfigError(f"cannot resume: byte {offset} of the EPD file {path} is not the end of a line; {_TODO}")


def check_resume_files(config: TournamentConfig, state: RunState) -> None:
    """Check every file ``-resume`` will cut back, before any is cut or any engine starts."""
    last = state.games[-1] if state.games else None
    try:
        if config.pgnout:
            check_pgn(config.pgnout, state.pgn_offset, last)
        if config.log and state.log_offset is not None:
            check_log(config.log, state.log_offset, last)
        if config.epdout and state.epd_offset is not None:
            check_epd(config.epdout, state.epd_offset)
    except OSError as err:  # a file that can be listed but not read (permissions, a folder)
        raise ConfigError(f"cannot resume: cannot read {err.filename or 'an output file'} "
                          f"({err.strerror or err}): make it readable, or start a new run") from None
