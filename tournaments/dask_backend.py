"""Games as tasks on a Dask cluster: ``-backend dask SCHEDULER`` or ``-backend dask local:N``.

The coordinator (the ``kestrel-tournament`` process) submits one task per game
and is the only writer of the PGN, the state file and the statistics: it
records each result as it completes, through the same ``Runner.record`` as
the local backend. A worker plays its games with the local backend's own code
(``play_game`` over an ``EnginePool``) in an asyncio loop that lives as long as
the worker process, so engine processes survive from one game to the next.

A worker that dies mid-game loses nothing: the scheduler hands the task to
another worker, which plays the game again from its opening with the same
colours; the coordinator records each game index once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import statistics
import threading
import time
import uuid
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TextIO, TypeVar

import chess
import chess.engine

from tournaments.adjudication import open_tablebase
from tournaments.config import ConfigError, TournamentConfig
from tournaments.engines import EnginePool, ProbeResult, SetupError, probe
from tournaments.game import GameOutcome, GameSpec, play_game, unplayed_game
from tournaments.install import install_hint
from tournaments.openings import Opening

if TYPE_CHECKING:
    from tournaments.runner import Runner

INSTALL_HINT = f"the Dask backend needs dask.distributed: {install_hint('cluster')}"
# Speeds further apart than this are more likely a busy machine than a slow one: the factor is clamped.
MAX_SCALE = 4.0
_T = TypeVar("_T")


def import_distributed() -> Any:
    """The ``distributed`` module, or ``ConfigError`` saying how to install it."""
    try:
        import distributed
    except ImportError:
        raise ConfigError(INSTALL_HINT) from None
    return distributed


# --- the speed benchmark ----------------------------------------------------------------------------

def measure_speed() -> float:
    """Positions per second of python-chess move generation (perft 3 from the start, best of 3).

    Like fishtest's bench, a short fixed workload on one core: it compares
    machines, it does not predict an engine's nodes per second.
    """
    def perft(board: chess.Board, depth: int) -> int:
        if depth == 1:
            return board.legal_moves.count()
        total = 0
        for move in board.legal_moves:
            board.push(move)
            total += perft(board, depth - 1)
            board.pop()
        return total

    best = math.inf
    for _ in range(3):
        start = time.perf_counter()
        nodes = perft(chess.Board(), 3)
        best = min(best, time.perf_counter() - start)
    return nodes / best


def scale_factor(reference: float, speed: float) -> float:
    """How much more time a worker of ``speed`` gets than the coordinator (``reference``), clamped."""
    if reference <= 0 or speed <= 0:
        return 1.0
    return min(MAX_SCALE, max(1.0 / MAX_SCALE, reference / speed))


# --- the worker side --------------------------------------------------------------------------------

class _WorkerLoop:
    """One asyncio loop per worker process, in its own thread, that owns the engine processes.

    Dask runs tasks in a thread pool; asyncio subprocesses belong to the loop
    that started them, so every task hands its game to this one loop. The
    thread lives as long as the process, which also keeps Linux's
    parent-death signal (sent when the spawning thread ends) from killing
    engines between games.
    """

    _lock = threading.Lock()
    _instance: _WorkerLoop | None = None

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="kestrel-engines", daemon=True)
        self.thread.start()
        self.pools: dict[int, tuple[str, EnginePool]] = {}  # task thread -> (run token, its engines)
        self.speed: float | None = None

    @classmethod
    def get(cls) -> _WorkerLoop:
        with cls._lock:
            if cls._instance is None:
                cls._instance = _WorkerLoop()
            return cls._instance

    def run(self, coro: Coroutine[Any, Any, _T]) -> _T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def own_speed(self) -> float:
        if self.speed is None:
            self.speed = measure_speed()
        return self.speed


def _worker_name() -> str:
    with contextlib.suppress(Exception):
        worker = import_distributed().get_worker()
        return str(worker.name if worker.name is not None else worker.address)
    return "?"


@dataclass
class TaskResult:
    """A game played on a worker, with the worker's wall-clock times around it."""

    outcome: GameOutcome
    worker: str
    started: float
    finished: float
    scale: float


async def _play(holder: _WorkerLoop, slot: int, token: str, config: TournamentConfig, spec: GameSpec,
                opening: Opening, scale: float) -> GameOutcome:
    current = holder.pools.get(slot)
    if current is None or current[0] != token:
        # A new run on a long-lived worker: its engines may differ, so start them afresh.
        if current is not None:
            await current[1].close()
        current = (token, EnginePool({e.name: e for e in config.engines}, config.wait_ms))
        holder.pools[slot] = current
    engines = await current[1].for_game(spec.white, spec.black)
    return await play_game(config, spec, opening, engines, time_scale=scale)


def play_task(token: str, config_data: dict[str, Any], spec: GameSpec, opening: Opening,
              reference_speed: float | None) -> TaskResult:
    """One game on a Dask worker (the task function); ``reference_speed`` set means scale the clocks."""
    config = TournamentConfig.from_dict(config_data)
    holder = _WorkerLoop.get()
    scale = 1.0 if reference_speed is None else scale_factor(reference_speed, holder.own_speed())
    started = time.time()
    outcome = holder.run(_play(holder, threading.get_ident(), token, config, spec, opening, scale))
    return TaskResult(outcome, _worker_name(), started, time.time(), scale)


@dataclass
class WorkerCheck:
    """What the start-up check learnt on one worker; strings only, so that it pickles everywhere."""

    worker: str
    speed: float
    errors: dict[str, str] = field(default_factory=dict)  # engine -> why it cannot be used: the run stops
    stalls: dict[str, str] = field(default_factory=dict)  # engine -> did not answer in time: a warning
    can_setboard: dict[str, bool] = field(default_factory=dict)
    options: dict[str, dict[str, chess.engine.Option]] = field(default_factory=dict)


def check_task(config_data: dict[str, Any]) -> WorkerCheck:
    """Start every engine once on this worker and measure its speed (the task function)."""
    config = TournamentConfig.from_dict(config_data)
    holder = _WorkerLoop.get()
    check = WorkerCheck(_worker_name(), holder.own_speed())
    if config.tb_path:
        try:
            open_tablebase(config.tb_path)
        except ConfigError as err:
            check.errors["-tb"] = str(err)
    for engine in config.engines:
        try:
            result = holder.run(probe(engine, config.startup_timeout))
        except SetupError as err:
            check.errors[engine.name] = str(err)
            continue
        if result.fault is not None and result.fault.kind != "stall":
            check.errors[engine.name] = f"failed its start-up check: {result.fault}"
        elif result.fault is not None:
            check.stalls[engine.name] = str(result.fault)
        check.can_setboard[engine.name] = result.can_setboard
        check.options[engine.name] = result.options
    return check


def shutdown_task() -> None:
    """Quit this worker's engines politely (run on every worker at the end)."""
    holder = _WorkerLoop._instance
    if holder is None:
        return

    async def close_all() -> None:
        for _, pool in holder.pools.values():
            await pool.close()
        holder.pools.clear()

    holder.run(close_all())


# --- the coordinator side ---------------------------------------------------------------------------

class DaskBackend:
    """The coordinator's connection to a cluster: start-up checks, then the games."""

    def __init__(self, config: TournamentConfig, stream: TextIO) -> None:
        self.config = config
        self.stream = stream
        self.client: Any = None
        self.cluster: Any = None
        self.reference_speed: float | None = None
        self.results: list[TaskResult] = []
        self.futures: dict[Any, GameSpec] = {}
        self.interrupted = False

    def open(self) -> dict[str, ProbeResult]:
        """Connect (or start a LocalCluster), check every worker; ``ConfigError`` for anything wrong."""
        distributed = import_distributed()
        address = self.config.scheduler or ""
        timeout = max(5.0, self.config.startup_timeout)
        # Dask logs a connection failure at length before raising it; the user gets one clear line instead.
        logging.getLogger("distributed").setLevel(logging.CRITICAL)
        if address.startswith("local:"):
            try:
                workers = int(address[len("local:"):])
            except ValueError:
                raise ConfigError(f"-backend dask {address}: expected local:N, N a number of workers") from None
            if workers < 1:
                raise ConfigError("-backend dask local:N needs at least one worker")
            # One thread a worker: each worker process plays one game at a time, as one core would.
            self.cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                                    dashboard_address=None)
            self.client = distributed.Client(self.cluster)
        else:
            try:
                self.client = distributed.Client(address, timeout=timeout)
            except (OSError, TimeoutError, ValueError) as err:
                raise ConfigError(f"cannot reach the Dask scheduler at {address!r}: {err}") from None
        try:
            self.client.wait_for_workers(1, timeout=timeout)
        except (TimeoutError, OSError):
            raise ConfigError(f"the Dask scheduler at {address!r} has no workers") from None
        if self.config.scale_tc:
            self.reference_speed = measure_speed()
        return self._check_workers()

    def _check_workers(self) -> dict[str, ProbeResult]:
        data = self.config.to_dict()
        addresses = sorted(self.client.scheduler_info()["workers"])
        futures = [self.client.submit(check_task, data, workers=[a], allow_other_workers=False, pure=False)
                   for a in addresses]
        checks: list[WorkerCheck] = self.client.gather(futures)
        problems = [f"worker {c.worker}: " + (text if name == "-tb" else f"engine {name!r}: {text}")
                    for c in checks for name, text in c.errors.items()]
        if problems:
            raise ConfigError("; ".join(problems))
        probes: dict[str, ProbeResult] = {}
        for engine in self.config.engines:
            stalled = [f"{c.worker} ({c.stalls[engine.name]})" for c in checks if engine.name in c.stalls]
            if stalled:
                self.stream.write(f"Warning: engine {engine.name!r} failed its start-up check on worker(s) "
                                  f"{', '.join(stalled)}; its games there are forfeited if it does not recover\n")
            options = next((c.options[engine.name] for c in checks if c.options.get(engine.name)), {})
            can_setboard = all(c.can_setboard.get(engine.name, True) for c in checks)
            probes[engine.name] = ProbeResult(None, options, can_setboard)
        for c in checks:
            text = f"Dask worker {c.worker}: speed {c.speed / 1000:.0f} kpos/s"
            if self.reference_speed is not None:
                text += f", clocks x{scale_factor(self.reference_speed, c.speed):.2f}"
            self.stream.write(text + "\n")
        self.stream.flush()
        return probes

    def play(self, runner: Runner) -> None:
        """Play the runner's unfinished games on the cluster and record each once (blocking)."""
        distributed = import_distributed()
        from distributed.scheduler import KilledWorker

        token = uuid.uuid4().hex
        data = self.config.to_dict()
        done = runner.state.finished_indices()
        futures = self.futures
        for spec in runner.specs:
            if spec.index in done or runner.stop:
                continue
            future = self.client.submit(play_task, token, data, spec, runner.openings[spec.opening],
                                        self.reference_speed, key=f"kestrel-game-{token}-{spec.index}", pure=False)
            futures[future] = spec
        started = time.monotonic()
        for future in distributed.as_completed(list(futures)):
            if self.interrupted:
                break
            spec = futures[future]
            if future.cancelled() or spec.index in done:
                continue
            opening = runner.openings[spec.opening]
            try:
                result: TaskResult = future.result()
                outcome = result.outcome
                self.results.append(result)
            except KilledWorker as err:
                outcome = unplayed_game(self.config, spec, opening, f"Dask workers died playing it: {err}")
            except Exception as err:  # a bug or a lost worker must cost one game, not the run
                outcome = unplayed_game(self.config, spec, opening, f"Dask task failed: {err!r}")
            done.add(spec.index)
            runner.record(outcome)
            if runner.stop:
                self._cancel_unstarted(futures)
            elif runner.progress.live is not None:
                runner.progress.set_running(self._running(), runner.state.games)
        self._report(time.monotonic() - started)

    def interrupt(self) -> None:
        """Stop playing (from another thread, on Ctrl-C): cancel every game not recorded yet."""
        self.interrupted = True
        with contextlib.suppress(Exception):
            self.client.cancel([f for f in self.futures if not f.done()])

    def _running(self) -> int:
        return sum(len(keys) for keys in self.client.processing().values())

    def _cancel_unstarted(self, futures: dict[Any, GameSpec]) -> None:
        """Cancel the games no worker has begun; those being played finish and are recorded."""
        running = {key for keys in self.client.processing().values() for key in keys}
        waiting = [f for f in futures if not f.done() and f.key not in running]
        if waiting:
            self.client.cancel(waiting)

    def _report(self, wall: float) -> None:
        """Games per minute and the time a game spends outside ``play_game`` (scheduling, transfer)."""
        if not self.results:
            return
        by_worker: dict[str, list[TaskResult]] = {}
        for r in self.results:
            by_worker.setdefault(r.worker, []).append(r)
        gaps = []
        for results in by_worker.values():
            results.sort(key=lambda r: r.started)
            gaps += [b.started - a.finished for a, b in zip(results, results[1:], strict=False)]
        played = statistics.mean(r.finished - r.started for r in self.results)
        text = (f"Dask: {len(self.results)} games on {len(by_worker)} workers in {wall:.1f}s "
                f"({60 * len(self.results) / wall:.1f} games/min), {played:.2f}s a game on its worker")
        if gaps:
            gap = statistics.mean(gaps)
            text += f", {1000 * gap:.0f} ms between games on a worker ({100 * gap / played:.1f}% of a game)"
        self.stream.write(text + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self.client is not None:
            with contextlib.suppress(Exception):
                self.client.run(shutdown_task)
            with contextlib.suppress(Exception):
                self.client.close()
        if self.cluster is not None:
            with contextlib.suppress(Exception):
                self.cluster.close()
        self.client = self.cluster = None

