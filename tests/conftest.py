"""Shared test helpers: the shared data folder, and Kestrel as a real UCI subprocess.

Test data that is too large for the repository (perft suites, opening sets) lives in
``<repo>/../shared/data``; a missing file is a failure, never a skip.
"""

from __future__ import annotations

import io
import queue
import random
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import chess
import chess.engine
import pytest

# pytest hooks: the suite on every core, the serial tests last and alone (serial_phase.py).
from serial_phase import (  # noqa: F401
    pytest_collection_modifyitems,
    pytest_configure,
    pytest_runtest_protocol,
    pytest_unconfigure,
    pytest_xdist_auto_num_workers,
    pytest_xdist_make_scheduler,
)

# Where the suite's CPU goes, test by test, when KESTREL_TEST_TIMELINE names a file (timeline.py).
from timeline import pytest_runtest_setup, pytest_runtest_teardown  # noqa: F401

from search.board import Position
from search.limits import SearchLimits
from uci_engine.output import Output
from uci_engine.protocol import UciEngine

# The repository's root, the one definition the tests and their helpers import.
REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"


def shared_data_path(name: str) -> Path:
    """The path of `name` in the shared data folder; fails the test if it is not there."""
    path = SHARED_DATA / name
    if not path.is_file():
        pytest.fail(f"shared test data {name!r} not found: expected it at {path} "
                    f"(the folder ../shared/data next to the repository {REPO_ROOT})", pytrace=False)
    return path


@pytest.fixture
def shared_data() -> Callable[[str], Path]:
    """The `shared_data_path` helper, for tests that prefer a fixture to an import."""
    return shared_data_path


# ---------------------------------------------------------------- the UCI engine as a process

REPO = REPO_ROOT            # the name tests/test_play.py imports
ENGINE_COMMAND = [sys.executable, "-m", "uci_engine"]
STOCKFISH = "/usr/games/stockfish"
FAIRYMAX = "/usr/games/fairymax"

Matcher = str | Callable[[str], bool]


class UciProcess:
    """Kestrel in a subprocess. A reader thread drains stdout (so a chatty engine never blocks
    on a full pipe) and stderr (kept, to show a traceback when a test fails).

    The pipes are buffered: a buffered line read returns each line as soon as it has arrived
    (it takes whatever the pipe holds), where an unbuffered one made a system call per byte,
    which cost the 10,000-line fuzz about 10 s of CPU.  `send` flushes what it writes."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(ENGINE_COMMAND + list(args), cwd=REPO_ROOT, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self._lines: queue.Queue[str | None] = queue.Queue()
        self.seen: list[str] = []
        self._stderr: list[bytes] = []
        threading.Thread(target=self._read_stdout, daemon=True).start()
        self._stderr_reader = threading.Thread(target=self._read_stderr, daemon=True)
        self._stderr_reader.start()

    def _read_stdout(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            self._lines.put(raw.decode("utf-8", "replace").rstrip("\r\n"))
        self._lines.put(None)

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        for raw in self.proc.stderr:
            self._stderr.append(raw)

    @property
    def stderr(self) -> str:
        return b"".join(self._stderr).decode("utf-8", "replace")

    def send(self, *lines: str | bytes) -> None:
        assert self.proc.stdin is not None
        data = b"".join(line if isinstance(line, bytes) else (line + "\n").encode() for line in lines)
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def close_stdin(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()

    def read_line(self, timeout: float) -> str | None:
        """The next line, None at end of output; AssertionError after `timeout` seconds."""
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no output for {timeout} s; last lines: {self.seen[-15:]}\n"
                                 f"stderr: {self.stderr}") from None
        if line is not None:
            self.seen.append(line)
        return line

    def read_until(self, match: Matcher, timeout: float = 20.0) -> list[str]:
        """Lines up to and including the first that starts with `match` (or satisfies it)."""
        test = (lambda line: line.startswith(match)) if isinstance(match, str) else match
        lines: list[str] = []
        while True:
            line = self.read_line(timeout)
            if line is None:
                raise AssertionError(f"output ended before {match!r}; got {lines[-15:]}\nstderr: {self.stderr}")
            lines.append(line)
            if test(line):
                return lines

    def drain(self, seconds: float) -> list[str]:
        """Whatever arrives in the next `seconds` (used to show that something does not come)."""
        lines: list[str] = []
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self._lines.get(timeout=left)
            except queue.Empty:
                break
            if line is None:
                self._lines.put(None)
                break
            self.seen.append(line)
            lines.append(line)
        return lines

    def ready(self, timeout: float = 20.0) -> list[str]:
        """Send isready; the lines before readyok."""
        self.send("isready")
        return self.read_until(lambda line: line == "readyok", timeout)[:-1]

    def handshake(self) -> list[str]:
        self.send("uci")
        lines = self.read_until(lambda line: line == "uciok", 20.0)
        self.ready()
        return lines

    def wait_exit(self, timeout: float = 20.0) -> int:
        """The exit status, once the process has ended and all it wrote on stderr is in `stderr`
        (read to its end: what it printed as it exited may not have been read yet)."""
        status = self.proc.wait(timeout)
        self._stderr_reader.join(timeout)
        return status

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.send("quit")
                self.close_stdin()
                self.proc.wait(10)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()


def play_with_clocks(white: chess.engine.SimpleEngine, black: chess.engine.SimpleEngine, plies: int,
                     clock: float, increment: float) -> chess.Board:
    """Play until the game ends by the rules (draws claimed) or after `plies` plies, keeping
    both clocks as a GUI does; every move must be legal and no side may run out of time."""
    board = chess.Board()
    clocks = {chess.WHITE: clock, chess.BLACK: clock}
    game = object()
    while not board.is_game_over(claim_draw=True) and len(board.move_stack) < plies:
        engine = white if board.turn == chess.WHITE else black
        limit = chess.engine.Limit(white_clock=clocks[chess.WHITE], black_clock=clocks[chess.BLACK],
                                   white_inc=increment, black_inc=increment)
        start = time.monotonic()
        result = engine.play(board, limit, game=game)
        clocks[board.turn] -= time.monotonic() - start
        side = "white" if board.turn == chess.WHITE else "black"
        assert clocks[board.turn] > 0, f"{side} lost on time at ply {len(board.move_stack)}"
        clocks[board.turn] += increment
        assert result.move is not None and result.move in board.legal_moves, \
            f"{side} played {result.move} in {board.fen()}"
        board.push(result.move)
    return board


def info_strings(lines: list[str]) -> list[str]:
    return [line[len("info string "):] for line in lines if line.startswith("info string ")]


def bestmoves(lines: list[str]) -> list[str]:
    return [line for line in lines if line.startswith("bestmove")]


@pytest.fixture
def engine() -> Iterator[UciProcess]:
    """Kestrel after `uci` and `isready`."""
    process = UciProcess()
    try:
        process.handshake()
        yield process
    finally:
        process.close()


@pytest.fixture
def kestrel() -> Iterator[chess.engine.SimpleEngine]:
    """Kestrel driven by python-chess, as lichess-bot and GUIs' Python tooling drive it."""
    engine = chess.engine.SimpleEngine.popen_uci(ENGINE_COMMAND, cwd=REPO_ROOT, timeout=30)
    try:
        yield engine
    finally:
        engine.quit()


def random_boards(games: int, seed: int) -> list[chess.Board]:
    """Positions from random games: every ply of each game, so material thins out as it goes."""
    rng = random.Random(seed)
    boards: list[chess.Board] = []
    for _ in range(games):
        board = chess.Board()
        for _ in range(rng.randint(10, 160)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
            boards.append(board.copy(stack=False))
    return boards


def uci_session() -> tuple[UciEngine, io.BytesIO]:
    """A UCI engine in this process, writing to a buffer (for option and command tests)."""
    buffer = io.BytesIO()
    return UciEngine(Output(buffer)), buffer


def send(engine: UciEngine, buffer: io.BytesIO, line: str) -> list[str]:
    """Handle one command line and return the lines it wrote."""
    start = len(buffer.getvalue())
    assert engine.handle(line)
    return buffer.getvalue()[start:].decode().splitlines()


class BackgroundSearch:
    """`go infinite` of a searcher on a thread of its own, with its reports collected, for tests
    that watch a search while it runs: wait for a report, then stop it and join the thread."""

    def __init__(self, searcher: Any, fen: str) -> None:
        self.searcher = searcher
        self.reports: list[Any] = []
        self.result: Any = None
        searcher.arm()
        self.thread = threading.Thread(
            target=lambda: setattr(self, "result", searcher.search(Position(fen), SearchLimits(infinite=True),
                                                                   self.reports.append)))
        self.thread.start()

    def wait_for(self, report: Any, timeout: float = 30.0) -> None:
        """Until `report` has been sent (fails after `timeout` seconds)."""
        deadline = time.monotonic() + timeout
        while report not in list(self.reports):
            assert time.monotonic() < deadline, f"no {report!r} within {timeout} s"
            time.sleep(0.05)

    def stop(self) -> Any:
        """Send stop; the search must end within 10 s. Its result."""
        self.searcher.stop()
        self.thread.join(10)
        assert not self.thread.is_alive(), "the search did not stop"
        return self.result

