"""The resume state: a snapshot of the run and a journal of the games finished since.

The state file itself is the snapshot: the run's configuration, its seed and the
games finished when it was written. It is replaced atomically (temporary file,
fsync, rename, directory fsync), so after a crash it is the old or the new one,
never half of one. That costs time in proportion to the games, so it is not
done after each game: each finished game is one JSON line appended to the
journal (``STATE.journal-N``), whose cost stays the same from the first game to
the last.

``StateStore.append`` writes the line before it returns (a killed runner loses
no game it recorded); the fsync that makes it survive a power cut, and the
compactions that fold the journal into a new snapshot, happen on a writer
thread, so the thread that plays the games never waits for the disk. A
compaction starts a new journal (generation N+1) before it writes the
snapshot that names it; ``load_state`` reads the snapshot, then journals N and
N+1, keeping each game once (every line carries the number of games recorded
with it), and ignores a last line cut short by a crash; a read of a running
run's state that a compaction overtakes (the snapshot replaced, journal N
removed) is made again. The snapshot and every
line name their run (``statecheck.run_digest``), and every field read back is
checked: a journal of another run, or a damaged field, is a ``ConfigError``.

``pgn_offset`` is the PGN file's length after the last recorded game; a
resumed run cuts the PGN back to it, so a game written to the PGN but not
recorded here is played again, never counted twice.
"""

from __future__ import annotations

import contextlib
import errno
import glob
import json
import os
import re
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from tournaments.config import ConfigError, TournamentConfig
from tournaments.statecheck import (
    ForeignRun,
    StateFieldError,
    dataclass_errors,
    describe,
    finished_game,
    mapping,
    optional_whole,
    require,
    run_digest,
    text,
    whole,
)

# 2: the journal (a version 1 file, a snapshot alone, still loads); 3: the snapshot and every journal line
# name their run (statecheck.run_digest), so a journal of another run is refused.
STATE_VERSION = 3
# A compaction starts once the journal holds this many games and at least as many as the snapshot
# (so a run of N games writes O(N) snapshot bytes in all, and a resume reads a short journal).
COMPACT_AFTER = 1000
SNAPSHOT_READ_ATTEMPTS = 5  # reads of a state that a compaction replaced meanwhile (load_state)
_SNAPSHOT_CHUNK = 200  # games serialized between two yields of the GIL during a compaction


@dataclass
class FinishedGame:
    """What the state file remembers of a game (enough for the tables, the SPRT and the plot)."""

    index: int
    pair: int
    round: int
    white: str
    black: str
    opening: int
    result: str
    termination: str
    reason: str
    plies: int


@dataclass
class RunState:
    config: dict[str, Any]
    seed: int
    pgn_offset: int = 0
    games: list[FinishedGame] = field(default_factory=list)
    stopped: str = ""  # why the run ended early (SPRT decision), "" while it goes on
    # Lengths of the -epdout and -log files after the last recorded game (None: not written yet).
    epd_offset: int | None = None
    log_offset: int | None = None

    def finished_indices(self) -> set[int]:
        return {g.index for g in self.games}


def journal_path(path: str, generation: int) -> str:
    return f"{path}.journal-{generation}"


def fsync_directory(path: str) -> None:
    """Make a rename or a new file in ``path``'s folder durable, where the platform can.

    Windows cannot open a folder (``os.open`` fails with EACCES) and NTFS
    journals its renames itself; some file systems refuse to fsync a folder.
    Neither should stop a run, so both are skipped.
    """
    if os.name == "nt":
        return
    try:
        directory = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
    except (PermissionError, IsADirectoryError):
        return
    try:
        os.fsync(directory)
    except OSError as err:
        if err.errno not in (errno.EINVAL, errno.EBADF, errno.EACCES, errno.ENOTSUP, errno.EOPNOTSUPP):
            raise
    finally:
        os.close(directory)


def _sync_data(fd: int) -> None:
    # fdatasync skips the timestamps; macOS and Windows have only fsync.
    getattr(os, "fdatasync", os.fsync)(fd)


def _header(state: RunState, generation: int) -> dict[str, Any]:
    return {"version": STATE_VERSION, "run": run_digest(state.config, state.seed), "config": state.config,
            "seed": state.seed, "pgn_offset": state.pgn_offset, "stopped": state.stopped,
            "epd_offset": state.epd_offset, "log_offset": state.log_offset, "journal": generation}


def _write_snapshot(path: str, header: dict[str, Any], games: list[FinishedGame], count: int,
                    yield_gil: bool = False) -> None:
    """Replace ``path`` atomically by ``header`` and ``games[:count]``.

    ``yield_gil``: on the writer thread, serialize in chunks and let other
    threads run between them, so a long snapshot never holds the GIL for long.
    """
    head = json.dumps(header)
    assert head.endswith("}")
    tmp = f"{path}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(head[:-1] + ', "games": [')
        for start in range(0, count, _SNAPSHOT_CHUNK):
            chunk = ", ".join(json.dumps(vars(g)) for g in games[start:min(count, start + _SNAPSHOT_CHUNK)])
            f.write(chunk if start == 0 else ", " + chunk)
            if yield_gil:
                time.sleep(0)
        f.write("]}")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    # The rename itself must reach the disk too, or a crash could bring back the old file.
    fsync_directory(path)


def _open_journal(path: str) -> int:
    """Create (or empty) a journal file; the caller makes its folder entry durable."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND | getattr(os, "O_BINARY", 0)
    return os.open(path, flags, 0o644)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


@dataclass
class _Compaction:
    """A snapshot for the writer thread: ``games[:count]`` under ``header``, then journal N-1 goes."""

    header: dict[str, Any]
    games: list[FinishedGame]
    count: int
    generation: int
    old_fd: int  # journal N-1, no longer written


class StateStore:
    """Writes one run's state: a snapshot at the start and the end, a journal line per game between.

    ``append`` is called by one thread at a time (the runner's); the writer
    thread syncs the journal and writes the compactions.
    """

    def __init__(self, path: str | None, compact_after: int = COMPACT_AFTER) -> None:
        self.path = path
        self.compact_after = compact_after
        self.generation = 0
        self.fd: int | None = None
        self.journal_games = 0  # lines in the current journal
        self.run = ""  # the run's digest, set by the first snapshot
        self.snapshot_games = 0  # games in the snapshot that names the current journal (or will)
        self._lock = threading.Condition()
        self._dirty: list[int] = []  # descriptors written since their last fsync, in the order to sync them
        self._compaction: _Compaction | None = None
        self._compacting = False
        self._error: BaseException | None = None
        self._closing = False
        self._thread: threading.Thread | None = None

    def snapshot(self, state: RunState) -> None:
        """Write the whole state now and start an empty journal (at the start and the end of a run).

        Blocks until it is on disk: no game is being played then.
        """
        if self.path is None:
            return
        self.flush()
        previous = self.generation
        self.generation = max(previous, _loaded_generation(self.path)) + 1
        # Above every journal on disk, so it starts empty whatever an older run left.
        new_fd = _open_journal(journal_path(self.path, self.generation))
        header = _header(state, self.generation)
        self.run = header["run"]  # every journal line names it; the configuration is fixed from here on
        _write_snapshot(self.path, header, state.games, len(state.games))
        if self.fd is not None:
            os.close(self.fd)
        self.fd = new_fd
        self.journal_games = 0
        self.snapshot_games = len(state.games)
        # Older journals are folded into the snapshot now; a stale one left behind would only be ignored.
        for old in glob.glob(glob.escape(self.path) + ".journal-*"):
            if old != journal_path(self.path, self.generation):
                with contextlib.suppress(OSError):
                    os.remove(old)

    def append(self, state: RunState, game: FinishedGame, sync_first: Sequence[int] = ()) -> None:
        """Record ``game`` (just appended to ``state.games``) and the offsets that point past it.

        ``sync_first`` are the files the game was written to (PGN, EPD, log): the writer thread
        syncs them before the journal line, so that line never reaches the disk alone.
        """
        if self.path is None:
            for fd in sync_first:
                _sync_data(fd)
            return
        if self.fd is None:
            self.snapshot(state)  # a store that never wrote its snapshot: make one (holds ``game`` too)
            return
        if self._error is not None:
            raise self._error
        entry = {"n": len(state.games), "run": self.run, "game": vars(game), "pgn_offset": state.pgn_offset,
                 "epd_offset": state.epd_offset, "log_offset": state.log_offset, "stopped": state.stopped}
        _write_all(self.fd, (json.dumps(entry) + "\n").encode("utf-8"))
        self.journal_games += 1
        with self._lock:
            for fd in (*sync_first, self.fd):
                if fd not in self._dirty:
                    self._dirty.append(fd)
            if (not self._compacting and self.journal_games >= self.compact_after
                    and self.journal_games >= self.snapshot_games):
                self._rotate(state)
            self._lock.notify()
        self._ensure_thread()

    def _rotate(self, state: RunState) -> None:
        """Start journal N+1 and hand the snapshot that names it to the writer (lock held)."""
        assert self.path is not None and self.fd is not None
        old_fd = self.fd
        self.generation += 1
        self.fd = _open_journal(journal_path(self.path, self.generation))
        self._dirty.append(self.fd)
        # The games list only grows, so the writer can read its first `count` entries while games go on.
        count = len(state.games)
        self._compaction = _Compaction(_header(state, self.generation), state.games, count, self.generation, old_fd)
        self._compacting = True
        self.journal_games = 0
        self.snapshot_games = count

    def _ensure_thread(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._write_loop, name="kestrel-state", daemon=True)
            self._thread.start()

    def _write_loop(self) -> None:
        while True:
            with self._lock:
                while not self._dirty and self._compaction is None and not self._closing:
                    self._lock.wait()
                if not self._dirty and self._compaction is None:
                    return
                dirty, self._dirty = self._dirty, []
                compaction, self._compaction = self._compaction, None
            try:
                for fd in dirty:
                    _sync_data(fd)
                if compaction is not None:
                    self._compact(compaction)
            except BaseException as err:  # noqa: BLE001 - reported to the runner's thread by the next append
                with self._lock:
                    self._error = err
                    self._compacting = True  # no further rotation: the snapshot must keep naming journal N-1
                    self._lock.notify_all()
                return
            with self._lock:
                if compaction is not None:
                    self._compacting = False
                self._lock.notify_all()

    def _compact(self, job: _Compaction) -> None:
        assert self.path is not None
        fsync_directory(self.path)  # journal N+1's folder entry, before the snapshot names it
        _write_snapshot(self.path, job.header, job.games, job.count, yield_gil=True)
        # Journal N's games are in the snapshot now (and its lines were synced before it).
        os.close(job.old_fd)
        with contextlib.suppress(OSError):
            os.remove(journal_path(self.path, job.generation - 1))

    def flush(self) -> None:
        """Wait until every appended line is synced and any compaction is written; raise its error."""
        thread = self._thread
        if thread is not None:
            with self._lock:
                self._closing = True
                self._lock.notify_all()
            thread.join()
            self._thread = None
            self._closing = False
        self._compacting = False
        if self._error is not None:
            error, self._error = self._error, None
            raise error

    def close(self, state: RunState | None = None) -> None:
        """Finish the writes; with ``state``, fold the journal into a final snapshot."""
        try:
            if state is not None:
                self.snapshot(state)
            else:
                self.flush()
        finally:
            if self.fd is not None:
                os.close(self.fd)
                self.fd = None


def save_state(path: str | None, state: RunState) -> None:
    """Write ``state`` as a snapshot with an empty journal (a one-off ``StateStore``)."""
    StateStore(path).close(state)


def _loaded_generation(path: str) -> int:
    """The highest journal generation beside ``path`` (a new journal must not reuse one)."""
    found = [int(m.group(1)) for p in glob.glob(glob.escape(path) + ".journal-*")
             if (m := re.search(r"\.journal-(\d+)$", p))]
    return max(found, default=0)


DAMAGED = "restore it, or start a new run with another -pgnout or -state"


def _journal_entry(line: bytes, number: int, run: str | None) -> tuple[int, FinishedGame, dict[str, Any]]:
    """One journal line checked field by field: (n, game, offsets and stop reason); raise StateFieldError."""
    what = f"line {number}"
    entry = mapping(json.loads(line), what)
    n = whole(require(entry, "n", what), f"{what}'s n", least=1)
    game = FinishedGame(**finished_game(require(entry, "game", what), f"{what}'s game"))
    fields = {"pgn_offset": whole(require(entry, "pgn_offset", what), f"{what}'s pgn_offset"),
              "epd_offset": optional_whole(require(entry, "epd_offset", what), f"{what}'s epd_offset"),
              "log_offset": optional_whole(require(entry, "log_offset", what), f"{what}'s log_offset"),
              "stopped": text(require(entry, "stopped", what), f"{what}'s stopped")}
    if run is None and "run" in entry:
        raise StateFieldError(f"{what} names run {describe(entry['run'])}, but the state file names none: "
                              f"the journal is another run's")
    if run is not None and require(entry, "run", what) != run:
        raise ForeignRun(f"{what} belongs to run {describe(entry['run'])}, and the state file to run {run}")
    return n, game, fields


def _read_journal(path: str, games: list[FinishedGame], current: dict[str, Any], run: str | None) -> None:
    """Apply the lines of journal ``path`` that follow ``games``; a last line cut short is ignored.

    ``current`` holds the offsets and the stop reason, updated line by line; ``run`` is the
    snapshot's digest (None for a state written before digests), which every line must carry.
    """
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except FileNotFoundError:
        return
    except OSError as err:
        raise ConfigError(f"cannot resume: cannot read {path} ({err.strerror or err})") from None
    lines = raw.split(b"\n")
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            n, game, fields = _journal_entry(line, number, run)
        except ForeignRun as err:
            raise ConfigError(f"cannot resume: {path} {err}: the journal was copied from or left by another "
                              f"run; move it away to resume from the state file alone (its games are played "
                              f"again), or resume the run it belongs to") from None
        except StateFieldError as err:
            raise ConfigError(f"cannot resume: {path} is damaged: {err}; {DAMAGED}") from None
        except ValueError as err:  # not JSON
            if number == len(lines):  # no newline after it: the write was cut off by a crash
                sys.stderr.write(f"{path}: ignoring a last line cut short ({len(line)} bytes)\n")
                return
            raise ConfigError(f"cannot resume: {path} is damaged: line {number} is not JSON ({err}); "
                              f"{DAMAGED}") from None
        if n <= len(games):
            continue  # already in the snapshot (written by a compaction that had not removed this journal)
        if n != len(games) + 1:
            raise ConfigError(f"cannot resume: {path} is damaged: line {number} is game {n}, expected "
                              f"{len(games) + 1}; {DAMAGED}")
        for key in ("pgn_offset", "epd_offset", "log_offset"):
            before, after = current[key], fields[key]
            if before is not None and (after is None or after < before):
                raise ConfigError(f"cannot resume: {path} is damaged: line {number}'s {key} goes back from "
                                  f"{before} to {after}; {DAMAGED}")
        games.append(game)
        current.update(fields)


def _snapshot_identity(path: str) -> tuple[int, int, int] | None:
    """What changes when a compaction replaces the snapshot (a new file renamed over it)."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_ino, info.st_mtime_ns, info.st_size


def load_state(path: str) -> RunState:
    """The snapshot at ``path`` and the games of its journals, every field checked (``ConfigError``).

    A running tournament may compact while this reads: replace the snapshot, then remove the journal
    the old one named.  A read that saw the snapshot replaced under it is made again, so that a
    reader never mixes the old snapshot with the new journals (a false "damaged", or games missing).
    """
    for _ in range(SNAPSHOT_READ_ATTEMPTS - 1):
        before = _snapshot_identity(path)
        try:
            state = _load_state_once(path)
        except ConfigError:
            if _snapshot_identity(path) == before:
                raise
            continue
        if _snapshot_identity(path) == before:
            return state
    return _load_state_once(path)  # compactions come a doubling of the games apart: never this often


def _load_state_once(path: str) -> RunState:
    """One read of the snapshot and its journals (load_state)."""
    try:
        with open(path, encoding="utf-8") as f:
            raw = json.load(f)
    except (OSError, ValueError) as err:
        raise ConfigError(f"cannot resume from {path}: {getattr(err, 'strerror', None) or err}") from None
    try:
        data = mapping(raw, "the state file")
        version = require(data, "version", "the state file")
        if version not in (1, 2, STATE_VERSION):
            raise ConfigError(f"cannot resume from {path}: unknown state version {describe(version)} (this runner "
                              f"reads 1 to {STATE_VERSION}); resume it with the runner that wrote it")
        config = mapping(require(data, "config", "the state file"), "its config")
        seed = whole(require(data, "seed", "the state file"), "its seed")
        current: dict[str, Any] = {
            "pgn_offset": whole(require(data, "pgn_offset", "the state file"), "its pgn_offset"),
            "epd_offset": optional_whole(data.get("epd_offset"), "its epd_offset"),
            "log_offset": optional_whole(data.get("log_offset"), "its log_offset"),
            "stopped": text(data.get("stopped", ""), "its stopped")}
        listed = require(data, "games", "the state file")
        if not isinstance(listed, list):
            raise StateFieldError(f"its games are {type(listed).__name__}, not a list")
        games = [FinishedGame(**finished_game(g, f"its game {i}")) for i, g in enumerate(listed, 1)]
        generation = whole(require(data, "journal", "the state file"), "its journal") if version >= 2 else None
        run = text(require(data, "run", "the state file"), "its run") if version >= 3 else None
    except StateFieldError as err:
        raise ConfigError(f"cannot resume from {path}: the state file is damaged: {err}; {DAMAGED}") from None
    if run is not None and run != run_digest(config, seed):
        raise ConfigError(f"cannot resume from {path}: its settings were changed after the run began (they give "
                          f"run {run_digest(config, seed)}, the file names run {run}); -resume continues a run "
                          f"only as it began: undo the edit, or start a new run with another -pgnout or -state")
    if run is None:
        sys.stderr.write(f"{path} was written before state files named their run: its journal cannot be told "
                         f"from another run's, so its games are checked against the schedule and the PGN only\n")
    if generation is not None:
        # N+1 exists when a compaction had started its journal but not replaced the snapshot yet.
        for g in (generation, generation + 1):
            _read_journal(journal_path(path, g), games, current, run)
    return RunState(config=config, seed=seed, pgn_offset=current["pgn_offset"], games=games,
                    stopped=current["stopped"], epd_offset=current["epd_offset"], log_offset=current["log_offset"])


def state_as_dict(state: RunState) -> dict[str, Any]:
    """The state as one JSON object (tests and tools that inspect a run)."""
    return {**_header(state, 0), "games": [asdict(g) for g in state.games]}


def config_of(state: RunState) -> TournamentConfig:
    """The run's configuration, every field checked: a damaged one is a ``ConfigError``."""
    try:
        config = TournamentConfig.from_dict(state.config)
    except (TypeError, ValueError, AttributeError, KeyError) as err:
        raise ConfigError(f"cannot resume: the state file's config is damaged ({err}); {DAMAGED}") from None
    errors = dataclass_errors(config)
    if errors:
        raise ConfigError(f"cannot resume: the state file's config is damaged ({'; '.join(errors[:3])}); "
                          f"{DAMAGED}")
    return config
