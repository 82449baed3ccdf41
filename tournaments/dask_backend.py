"""Games as tasks on a Dask cluster: ``-backend dask SCHEDULER`` or ``-backend dask local:N``.

The coordinator (the ``kestrel-tournament`` process) submits one task per game
and is the only writer of the PGN, the state file and the statistics: it
records each result as it completes, through the same ``Runner.record`` as
the local backend. A worker plays its games with the local backend's own code
(``play_game`` over an ``EnginePool``) in an asyncio loop that lives as long as
the worker process, so engine processes survive from one game to the next.

Infrastructure failures are never results. A worker that dies mid-game loses
nothing: the scheduler hands the task to another worker, which plays the game
again from its opening with the same colours. Games go only to workers that
passed the start-up check, late joiners included; a worker where an engine
cannot start refuses the game, gets no more, and the game goes elsewhere. A
task that fails otherwise is not recorded, so ``-resume`` plays it again.
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
from collections import deque
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TextIO, TypeVar

import chess
import chess.engine

from tournaments.adjudication import open_tablebase
from tournaments.config import ConfigError, TournamentConfig
from tournaments.engines import EngineFault, EnginePool, EngineProcess, ProbeResult, SetupError, probe
from tournaments.game import GameOutcome, GameSpec, play_game
from tournaments.install import install_hint
from tournaments.observe import MoveUpdate
from tournaments.openings import Opening

if TYPE_CHECKING:
    from tournaments.runner import Runner

INSTALL_HINT = f"the Dask backend needs dask.distributed: {install_hint('cluster')}"
# Speeds further apart than this are more likely a busy machine than a slow one: the factor is clamped.
MAX_SCALE = 4.0
# Workers that may refuse one game (an engine that cannot start there) before the run stops with an error.
MAX_REFUSALS = 3
# With no worker at all (all gone, none joining), how long the coordinator waits before it stops.
NO_WORKER_GRACE_S = 30.0
POLL_S = 1.0  # how often the coordinator looks for workers that joined or left while games run
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

# A slot whose engines get no game for this long quits them: the coordinator that sent the games may be
# gone (killed, with no chance to say so), and idle engines would stay for as long as the worker lives.
IDLE_CLOSE_S = 10.0
# How often a game checks that the coordinator still wants it (a cancelled task stops its game).
WATCH_S = 0.5


class WorkerUnfit(Exception):
    """An engine cannot start on this worker: the worker's fault, never a result of the game."""

    def __init__(self, engine: str, reason: str) -> None:
        super().__init__(engine, reason)
        self.engine = engine
        self.reason = reason


@dataclass
class Refusal:
    """A game task's answer when the worker did not play the game: the coordinator plays it elsewhere.

    A value rather than an exception, so that Dask does not log a failed task
    with its traceback for what is a worker's set-up problem.
    """

    worker: str  # its address
    engine: str
    reason: str


class GameAbandoned(Exception):
    """The coordinator no longer wants the game (its task was cancelled or released): it was stopped."""


class _WorkerLoop:
    """One asyncio loop per worker process, in its own thread, that owns the engine processes.

    Dask runs tasks in a thread pool; asyncio subprocesses belong to the loop
    that started them, so every task hands its game to this one loop. The
    thread lives as long as the process, which also keeps Linux's
    parent-death signal (sent when the spawning thread ends) from killing
    engines between games: engines die with their worker process.
    """

    _lock = threading.Lock()
    _instance: _WorkerLoop | None = None

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="kestrel-engines", daemon=True)
        self.thread.start()
        self.pools: dict[int, tuple[str, EnginePool]] = {}  # task thread -> (run token, its engines)
        self.busy: set[int] = set()  # slots playing a game now
        self.idle_timers: dict[int, asyncio.TimerHandle] = {}
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

    # The three methods below run on the loop's thread, so a slot is either busy or closable, never both.

    def begin(self, slot: int) -> None:
        self.busy.add(slot)
        timer = self.idle_timers.pop(slot, None)
        if timer is not None:
            timer.cancel()

    def end(self, slot: int) -> None:
        self.busy.discard(slot)
        self.idle_timers[slot] = self.loop.call_later(IDLE_CLOSE_S, self._close_idle, slot)

    def _close_idle(self, slot: int) -> None:
        self.idle_timers.pop(slot, None)
        if slot in self.busy:
            return
        current = self.pools.pop(slot, None)
        if current is not None:
            self.loop.create_task(current[1].close())


def _worker_name() -> str:
    with contextlib.suppress(Exception):
        worker = import_distributed().get_worker()
        return str(worker.name if worker.name is not None else worker.address)
    return "?"


def _worker_address() -> str:
    with contextlib.suppress(Exception):
        return str(import_distributed().get_worker().address)
    return "?"


def _live_events(topic: str | None) -> Callable[[MoveUpdate], None] | None:
    """Send each move to the coordinator as a Dask event (``Client.subscribe_topic`` hears it)."""
    if topic is None:
        return None
    from distributed import get_worker

    worker = get_worker()

    def send(update: MoveUpdate) -> None:
        with contextlib.suppress(Exception):  # the live page is a view: a lost update never stops a game
            worker.log_event(topic, update.as_dict())

    return send


def _forward_moves(runner: Runner) -> Callable[[Any], None]:
    """The coordinator's handler of the workers' move events: (time, message) pairs, passed to the observers."""
    def forward(event: Any) -> None:
        with contextlib.suppress(Exception):  # a view: a malformed event is dropped, the run goes on
            runner.moved(MoveUpdate.from_dict(event[1]))
    return forward


def _task_watch() -> Callable[[], bool] | None:
    """In a task's thread: a test of whether the scheduler still wants this task (None outside a worker)."""
    try:
        worker = import_distributed().get_worker()
        key = worker.get_current_task()
    except (ValueError, AttributeError, ConfigError):
        return None

    def wanted() -> bool:
        # Read from the engines' thread: a dict lookup and an attribute, safe under the GIL.
        task = worker.state.tasks.get(key)
        return task is not None and task.state not in ("cancelled", "released", "forgotten")

    return wanted


@dataclass
class TaskResult:
    """A game played on a worker, with the worker's wall-clock times around it."""

    outcome: GameOutcome
    worker: str
    started: float
    finished: float
    scale: float


async def _start_engines(engines: dict[chess.Color, EngineProcess], timeout: float) -> None:
    """Start the game's engines that are not running; one that cannot start makes this worker unfit.

    A missing command or option, or an engine that dies or garbles its
    handshake, is this worker's set-up, not the engine's play: the game is not
    scored here (``WorkerUnfit``). An engine that only stays silent is left to
    the game, which forfeits it as on the local backend.
    """
    for engine in engines.values():
        if engine.alive:
            continue
        try:
            await engine.start(timeout)
        except SetupError as err:
            await engine.kill()
            raise WorkerUnfit(engine.config.name, str(err)) from None
        except EngineFault as fault:
            await engine.kill()
            if fault.kind != "stall":
                raise WorkerUnfit(engine.config.name, str(fault)) from None


async def _play(holder: _WorkerLoop, slot: int, token: str, config: TournamentConfig, spec: GameSpec,
                opening: Opening, scale: float, wanted: Callable[[], bool] | None,
                watch: Callable[[MoveUpdate], None] | None = None) -> GameOutcome:
    holder.begin(slot)
    try:
        current = holder.pools.get(slot)
        if current is None or current[0] != token:
            # A new run on a long-lived worker: its engines may differ, so start them afresh.
            if current is not None:
                await current[1].close()
            current = (token, EnginePool({e.name: e for e in config.engines}, config.wait_ms))
            holder.pools[slot] = current
        pool = current[1]
        engines = await pool.for_game(spec.white, spec.black)
        await _start_engines(engines, config.startup_timeout)
        game = asyncio.ensure_future(play_game(config, spec, opening, engines, time_scale=scale, watch=watch))
        while True:
            done, _ = await asyncio.wait({game}, timeout=WATCH_S)
            if done:
                return game.result()
            if wanted is not None and not wanted():
                # The coordinator cancelled the game or is gone: stop it and quit its engines now.
                game.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await game
                holder.pools.pop(slot, None)
                await pool.close()
                raise GameAbandoned(f"game {spec.index + 1} is no longer wanted")
    finally:
        holder.end(slot)


def play_task(token: str, config_data: dict[str, Any], spec: GameSpec, opening: Opening,
              reference_speed: float | None, live_topic: str | None = None) -> TaskResult | Refusal:
    """One game on a Dask worker (the task function); ``reference_speed`` set means scale the clocks.

    With ``live_topic``, every move goes to the coordinator as a Dask event on that topic (for -web).
    """
    config = TournamentConfig.from_dict(config_data)
    holder = _WorkerLoop.get()
    scale = 1.0 if reference_speed is None else scale_factor(reference_speed, holder.own_speed())
    started = time.time()
    try:
        outcome = holder.run(_play(holder, threading.get_ident(), token, config, spec, opening, scale, _task_watch(),
                                   _live_events(live_topic)))
    except WorkerUnfit as err:
        return Refusal(_worker_address(), err.engine, err.reason)
    except GameAbandoned as err:
        return Refusal(_worker_address(), "", str(err))  # nobody reads it: the task was cancelled
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


def _problems(check: WorkerCheck) -> list[str]:
    return [text if name == "-tb" else f"engine {name!r}: {text}" for name, text in check.errors.items()]


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


def _executing_keys(dask_worker: Any) -> list[str]:
    """The keys of the tasks this worker is running now (run on every worker by ``Client.run``)."""
    return [str(task.key) for task in dask_worker.state.executing]


def shutdown_task() -> None:
    """Quit this worker's engines politely (run on every worker at the end)."""
    holder = _WorkerLoop._instance
    if holder is None:
        return

    async def close_all() -> None:
        for timer in holder.idle_timers.values():
            timer.cancel()
        holder.idle_timers.clear()
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
        self.futures: dict[Any, GameSpec] = {}  # games submitted and not yet handled
        self.allowed: dict[Any, frozenset[str]] = {}  # game future -> the workers it may run on
        self.fit: dict[str, int] = {}  # worker address -> threads: workers that passed the start-up check
        self.unfit: dict[str, str] = {}  # worker address -> why it gets no games of this run
        self.checks: dict[Any, str] = {}  # start-up checks of workers that joined later -> worker address
        self._threads: dict[str, int] = {}  # every live worker's threads, as last seen
        self.probes: dict[str, ProbeResult] = {}
        self.failure: str | None = None  # why the run had to stop (no worker could play a game)
        self.unplayed: list[tuple[GameSpec, str]] = []  # games whose task failed: -resume plays them
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
            # Its workers' logs (a cancelled waiting game; under load, a heartbeat that meets the
            # scheduler already closed at shutdown, with its traceback) would land among the run's
            # lines.  What a worker's failure means for the run reaches it as the task's failure.
            self.cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                                    dashboard_address=None, silence_logs=logging.CRITICAL)
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
        threads: dict[str, int] = self.client.nthreads()
        addresses = sorted(threads)
        futures = [self.client.submit(check_task, data, workers=[a], allow_other_workers=False, pure=False)
                   for a in addresses]
        checks: list[WorkerCheck] = self.client.gather(futures)
        problems = [f"worker {c.worker}: {text}" for c in checks for text in _problems(c)]
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
        for address, c in zip(addresses, checks, strict=True):
            self.fit[address] = threads[address]
            self.stream.write(self._speed_line(c) + "\n")
        self.stream.flush()
        self.probes = probes
        return probes

    def _speed_line(self, check: WorkerCheck) -> str:
        text = f"Dask worker {check.worker}: speed {check.speed / 1000:.0f} kpos/s"
        if self.reference_speed is not None:
            text += f", clocks x{scale_factor(self.reference_speed, check.speed):.2f}"
        return text

    def play(self, runner: Runner) -> None:
        """Play the runner's unfinished games on the cluster and record each once (blocking).

        Games go only to workers that passed the start-up check (a worker that
        joins later is checked first), one per worker thread and one waiting on
        each worker, so that an SPRT decision has few games to cancel. A game a
        worker refuses (a ``Refusal``) goes to another worker; one whose task
        fails otherwise is not recorded, and ``-resume`` plays it again.
        """
        distributed = import_distributed()
        token = uuid.uuid4().hex
        live_topic = f"kestrel-live-{token}" if runner.observers else None
        if live_topic is not None:
            self.client.subscribe_topic(live_topic, _forward_moves(runner))
        data = self.config.to_dict()
        done = runner.state.finished_indices()
        queue = deque(spec for spec in runner.specs if spec.index not in done)
        refusals: dict[int, dict[str, str]] = {}  # game index -> worker -> why it could not play it
        submitted = 0
        no_worker_since: float | None = None
        cancelled_waiting = False
        started = time.monotonic()
        while not self.interrupted:
            self._watch_workers(queue)
            stopping = runner.stop or self.failure is not None
            if stopping and not cancelled_waiting:
                self._cancel_waiting()
                cancelled_waiting = True
            # A game for each worker thread, and one waiting on each worker so that it starts at once.
            capacity = sum(self.fit.values()) + len(self.fit)
            while queue and not stopping and self.fit and len(self.futures) < capacity:
                spec = queue.popleft()
                submitted += 1
                workers = sorted(self.fit)
                future = self.client.submit(play_task, token, data, spec, runner.openings[spec.opening],
                                            self.reference_speed, live_topic,
                                            key=f"kestrel-game-{token}-{submitted}",
                                            workers=workers, allow_other_workers=False, pure=False)
                self.futures[future] = spec
                self.allowed[future] = frozenset(workers)
            if runner.progress.live is not None:
                runner.progress.set_running(len(self.futures), runner.state.games)
            if not self.futures:
                if stopping or not queue:
                    break
                if not self.checks:
                    no_worker_since = no_worker_since or time.monotonic()
                    if self.unfit.keys() & self._live or time.monotonic() - no_worker_since > NO_WORKER_GRACE_S:
                        self.failure = self._no_worker_text()
                        break
            else:
                no_worker_since = None
            pending = [*self.futures, *self.checks]
            if not pending:
                time.sleep(POLL_S)
                continue
            try:
                finished, _ = distributed.wait(pending, timeout=POLL_S, return_when="FIRST_COMPLETED")
            except TimeoutError:
                continue
            except distributed.client.FuturesCancelledError:
                finished = {f for f in pending if f.cancelled()}  # Ctrl-C, or gone workers' checks
            for future in finished:
                if future in self.checks:
                    self._checked(future)
                elif future in self.futures:
                    self._game_done(runner, future, queue, refusals)
        with contextlib.suppress(Exception):
            # Ctrl-C: every game not recorded yet; otherwise only the checks of workers that came too late.
            self.client.cancel([*self.futures, *self.checks] if self.interrupted else list(self.checks))
        self._report(time.monotonic() - started)

    def _game_done(self, runner: Runner, future: Any, queue: deque[GameSpec],
                   refusals: dict[int, dict[str, str]]) -> None:
        from distributed.scheduler import KilledWorker

        spec = self.futures.pop(future)
        self.allowed.pop(future, None)
        if future.cancelled():
            return
        error = future.exception() if future.status == "error" else None
        if error is not None:
            # Not a result: the game stays unfinished, so -resume plays it again.
            reason = (f"Dask workers died playing it ({error})" if isinstance(error, KilledWorker)
                      else f"its Dask task failed: {error!r}")
            self.unplayed.append((spec, reason))
            self.stream.write(f"Warning: game {spec.index + 1} was not played: {reason}; "
                              f"-resume plays it again\n")
            self.stream.flush()
            return
        result: TaskResult | Refusal = future.result()
        if isinstance(result, Refusal) and not result.engine:
            queue.appendleft(spec)  # stopped on the worker without being cancelled here: play it again
            return
        if isinstance(result, Refusal):
            why = f"engine {result.engine!r} cannot start there ({result.reason})"
            self._exclude(result.worker, why)
            who = refusals.setdefault(spec.index, {})
            who[result.worker] = why
            if len(who) >= MAX_REFUSALS:
                self.failure = (f"game {spec.index + 1} could not start on {len(who)} Dask workers: "
                                + "; ".join(f"{w}: {text}" for w, text in who.items()))
            else:
                queue.appendleft(spec)  # played elsewhere, as soon as a worker is free
            return
        self.results.append(result)
        runner.record(result.outcome)

    def _cancel_waiting(self) -> None:
        """Cancel the games no worker has begun (the run stops); those being played finish and are recorded."""
        try:
            executing = {key for keys in self.client.run(_executing_keys).values() for key in keys}
        except Exception:  # noqa: BLE001 - then the waiting games are played too: nothing is lost
            return
        waiting = [f for f in self.futures if not f.done() and f.key not in executing]
        if waiting:
            self.client.cancel(waiting)
        for future in waiting:
            del self.futures[future]
            self.allowed.pop(future, None)

    @property
    def _live(self) -> set[str]:
        return set(self._threads)

    def _watch_workers(self, queue: deque[GameSpec]) -> None:
        """Check workers that joined, forget those that left, and take back games no live worker may play."""
        with contextlib.suppress(Exception):  # the scheduler busy or gone: keep the last known workers
            self._threads = dict(self.client.nthreads())
        live = self._live
        for address in [a for a in self.fit if a not in live]:
            del self.fit[address]
        for future, address in list(self.checks.items()):
            if address not in live:
                del self.checks[future]
                future.cancel()
        checking = set(self.checks.values())
        data = self.config.to_dict()
        for address in sorted(live - self.fit.keys() - self.unfit.keys() - checking):
            # A worker that joined after the start: the same check as the first ones, before any game.
            future = self.client.submit(check_task, data, workers=[address], allow_other_workers=False, pure=False)
            self.checks[future] = address
        for future, workers in list(self.allowed.items()):
            if not workers & live:
                # Restricted to workers that are all gone: nobody would ever play it.
                future.cancel()
                self.allowed.pop(future)
                queue.appendleft(self.futures.pop(future))

    def _checked(self, future: Any) -> None:
        """A late worker's start-up check came back: give it games, or none and say why."""
        address = self.checks.pop(future)
        try:
            check: WorkerCheck = future.result()
        except Exception as err:  # noqa: BLE001 - whatever it was, this worker gets no games
            self._exclude(address, f"its start-up check failed: {err!r}")
            return
        problems = _problems(check)
        for engine, can_setboard in check.can_setboard.items():
            probe_result = self.probes.get(engine)
            if not can_setboard and probe_result is not None and probe_result.can_setboard:
                problems.append(f"engine {engine!r} cannot set up positions (setboard=0) there")
        if problems:
            self._exclude(address, "; ".join(problems))
            return
        for engine, stall in check.stalls.items():
            self.stream.write(f"Warning: engine {engine!r} failed its start-up check on worker {check.worker} "
                              f"({stall}); its games there are forfeited if it does not recover\n")
        self.fit[address] = self._threads.get(address, 1)
        self.stream.write(f"{self._speed_line(check)} (joined)\n")
        self.stream.flush()

    def _exclude(self, address: str, reason: str) -> None:
        self.fit.pop(address, None)
        if address not in self.unfit:
            self.unfit[address] = reason
            self.stream.write(f"Warning: Dask worker {address} gets no more games of this run: {reason}\n")
            self.stream.flush()

    def _no_worker_text(self) -> str:
        if not self.unfit:
            return f"no Dask worker for {NO_WORKER_GRACE_S:.0f}s"
        return "no Dask worker can play this run's games: " + "; ".join(
            f"{address}: {why}" for address, why in self.unfit.items())

    def interrupt(self) -> None:
        """Stop playing (from another thread, on Ctrl-C): cancel every game not recorded yet."""
        self.interrupted = True
        with contextlib.suppress(Exception):
            self.client.cancel([f for f in list(self.futures) if not f.done()])

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

