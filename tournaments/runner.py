"""The scheduler: which games are played, N at a time, and what happens after each.

Each of the N workers owns the engine processes of the game it is playing and
keeps them for its next game when the same engines meet again, so that
startup is paid once per worker rather than once per game; a process that
faulted was killed by the game and is started afresh here.
"""

from __future__ import annotations

import asyncio
import itertools
import random
import sys
import time
from collections.abc import Callable
from typing import TextIO

from tournaments.config import ConfigError, TournamentConfig
from tournaments.engines import EnginePool, ProbeResult, SetupError, probe
from tournaments.game import GameOutcome, GameSpec, play_game
from tournaments.observe import MoveUpdate, RunObserver
from tournaments.openings import Opening, as_moves, load_openings, validate
from tournaments.pgnout import PgnWriter
from tournaments.replay import MAX_PLIES
from tournaments.report import Progress, sprt_line, sprt_of
from tournaments.state import FinishedGame, RunState, StateStore


def schedule(config: TournamentConfig, n_openings: int) -> list[GameSpec]:
    """Every game of the run, in order.

    The games of one encounter (A against B), counted across rounds, come in
    pairs: the 2k-th and (2k+1)-th share an opening with colours swapped. With
    an even ``-games`` every pair lies inside a round; with an odd one, such as
    cutechess-cli's ``-games 1 -rounds N -repeat``, the last game of a round
    pairs with the first of the next round, as cutechess-cli repeats the opening
    for the next game between the same players and swaps their colours.
    """
    names = [e.name for e in config.engines]
    if config.kind == "gauntlet":
        encounters = [(names[0], other) for other in names[1:]]
    else:
        encounters = list(itertools.combinations(names, 2))
    if config.reverse:
        encounters = [(b, a) for a, b in encounters]
    policy = config.openings.policy
    specs: list[GameSpec] = []
    pairs = 0
    played = dict.fromkeys(encounters, 0)  # games of each encounter so far, across rounds
    open_pair: dict[tuple[str, str], tuple[int, int]] = {}  # encounter -> (pair, opening) awaiting its second game
    # cutechess-cli's shift policies: "default" shifts the book on every new pair of games, "encounter" on
    # every new pairing of players (all games of A-B in a round share one opening), "round" on every round.
    shifts = -1
    for round_number in range(1, config.rounds + 1):
        if policy == "round":
            shifts += 1
        for encounter in encounters:
            a, b = encounter
            if policy == "encounter":
                shifts += 1
            for _ in range(config.games):
                first = played[encounter] % 2 == 0
                played[encounter] += 1
                if first:
                    if policy == "default":
                        shifts += 1
                    open_pair[encounter] = (pairs, shifts % n_openings)
                    pairs += 1
                pair, opening = open_pair[encounter]
                # -noswap: the first engine always has White; pairs still share their opening.
                white, black = (a, b) if first or config.noswap else (b, a)
                specs.append(GameSpec(len(specs), round_number, pair, white, black, opening))
    return specs


def check_schedule(config: TournamentConfig, specs: list[GameSpec], finished: list[FinishedGame]) -> None:
    """Raise ``ConfigError`` for an SPRT that no pair could move, or a state file from another schedule."""
    if config.sprt is not None and len({s.pair for s in specs}) == len(specs):
        raise ConfigError(f"-sprt counts game pairs, and -games {config.games} -rounds {config.rounds} make no "
                          f"pair (each opening is played twice, colours swapped): play at least two games "
                          f"(-games 2, or -rounds 2 or more)")
    seen: set[int] = set()
    for game in finished:
        if game.index in seen:
            raise ConfigError(f"the state file records game {game.index + 1} twice: it is damaged, so -resume "
                              f"cannot continue it; restore it, or start a new run with another -pgnout or -state")
        seen.add(game.index)
        spec = specs[game.index] if game.index < len(specs) else None
        if spec is None or (spec.pair, spec.white, spec.black, spec.opening) != \
                (game.pair, game.white, game.black, game.opening):
            raise ConfigError(f"the state file's game {game.index + 1} ({game.white} - {game.black}) is not the "
                              f"game this runner schedules there: it was written by a runner that paired games "
                              f"differently, so -resume cannot continue it")


async def preflight(config: TournamentConfig, stream: TextIO = sys.stderr) -> dict[str, ProbeResult]:
    """Start every engine once, in parallel, before any game.

    A bad command or option, or an engine that dies or garbles its handshake,
    raises ``ConfigError`` (the run must not start); an engine that does not
    answer in time only gets a warning, and forfeits its games with the reason
    in the PGN (it may be slow to start under load).
    """
    results = await asyncio.gather(*(probe(e, config.startup_timeout) for e in config.engines),
                                   return_exceptions=True)
    probes: dict[str, ProbeResult] = {}
    for engine, result in zip(config.engines, results, strict=True):
        if isinstance(result, SetupError):
            raise ConfigError(f"engine {engine.name!r}: {result}")
        if isinstance(result, BaseException):
            raise result
        fault = result.fault
        if fault is not None and fault.kind != "stall":
            # It ran but died or garbled the handshake: wrong command or protocol, not bad luck.
            raise ConfigError(f"engine {engine.name!r} failed its start-up check: {fault}")
        if fault is not None:
            stream.write(f"Warning: engine {engine.name!r} failed its start-up check ({fault}); "
                         f"its games will be forfeited if it does not recover\n")
        probes[engine.name] = result
    return probes


def check_setboard(config: TournamentConfig, probes: dict[str, ProbeResult], openings: list[Opening],
                   specs: list[GameSpec]) -> None:
    """Raise ``ConfigError`` if an engine without ``setboard`` would get a game that starts from a FEN.

    Stopping here, rather than skipping openings, keeps the schedule (pairs, colours,
    opening order) the same for every engine and loses no game silently.
    """
    for engine in config.engines:
        probe_result = probes.get(engine.name)
        if probe_result is None or probe_result.can_setboard:
            continue
        fen_games = [s for s in specs if engine.name in (s.white, s.black) and not openings[s.opening].from_start]
        if fen_games:
            first = openings[fen_games[0].opening]
            raise ConfigError(
                f"engine {engine.name!r} cannot set up positions (xboard feature setboard=0), but "
                f"{len(fen_games)} of its games start from a FEN that is not reached from the start "
                f"position within {MAX_PLIES} plies (first: {first.fen}); give it a PGN book, an EPD "
                f"book of shallow positions such as 2moves_v1.epd, or the built-in openings")


class Runner:
    """Plays the scheduled games that the state does not already hold."""

    def __init__(self, config: TournamentConfig, state: RunState, state_path: str | None,
                 stream: TextIO = sys.stderr) -> None:
        self.config = config
        self.state = state
        # The caller opens the real files once the engines have passed their checks.
        self.pgn = PgnWriter(None)
        self.epd = PgnWriter(None)
        self.log = PgnWriter(None)
        self.state_path = state_path
        self.store = StateStore(state_path)  # the caller writes its first snapshot, and the last
        self.stream = stream
        self.openings: list[Opening] = load_openings(config.openings, state.seed, config.variant)
        self.specs = schedule(config, len(self.openings))
        check_schedule(config, self.specs, state.games)
        for index in sorted({spec.opening for spec in self.specs}):
            validate(self.openings[index])
            # Deterministic, so a resumed run replays the same openings the same way.
            self.openings[index] = as_moves(self.openings[index])
        self.progress = Progress(config, len(self.specs), stream)
        self.queue: asyncio.Queue[GameSpec] = asyncio.Queue()
        self.stop = bool(state.stopped)
        # Why the run stopped before its end without a decision (an engine crash or stall, -recover off):
        # the run is unfinished, and the runner exits with status 1.
        self.crash_stop: str | None = None
        self.engine_configs = {e.name: e for e in config.engines}
        self.in_play = 0  # games being played now (local backend), for the live display
        # How long each record() held the thread that reads the engines (PGN, state journal, display):
        # a long run shows it stays flat from the first game to the last (record_cost_line).
        self.record_seconds: list[float] = []
        self.observers: list[RunObserver] = []  # read-only watchers (the live web page), told of moves and games

    def run_with(self, play: Callable[[Runner], None]) -> RunState:
        """Play through another backend (``play`` records games with ``record``), then close the display."""
        self.progress.restart()
        if not self.stop:
            play(self)
        self.progress.close()
        return self.state

    async def run(self) -> RunState:
        self.progress.restart()
        done = self.state.finished_indices()
        for spec in self.specs:
            if spec.index not in done:
                self.queue.put_nowait(spec)
        if not self.stop and self.queue.qsize():
            count = min(self.config.concurrency, self.queue.qsize())
            workers = [asyncio.create_task(self._worker()) for _ in range(count)]
            try:
                await asyncio.gather(*workers)
            finally:
                for w in workers:
                    w.cancel()
                await asyncio.gather(*workers, return_exceptions=True)
        self.progress.close()
        return self.state

    async def _worker(self) -> None:
        pool = EnginePool(self.engine_configs, self.config.wait_ms)
        try:
            while not self.stop:
                try:
                    spec = self.queue.get_nowait()
                except asyncio.QueueEmpty:
                    return
                engines = await pool.for_game(spec.white, spec.black)
                self.in_play += 1
                self.progress.set_running(self.in_play, self.state.games)
                try:
                    outcome = await play_game(self.config, spec, self.openings[spec.opening], engines,
                                              watch=self.moved if self.observers else None)
                finally:
                    self.in_play -= 1
                self.record(outcome)
        finally:
            await pool.close()

    def moved(self, update: MoveUpdate) -> None:
        """A game in progress made a move (or started): tell the observers."""
        for observer in self.observers:
            observer.moved(update)

    def record(self, outcome: GameOutcome) -> None:
        """Make a finished game durable: PGN first, then the state that points past it."""
        started = time.perf_counter()
        try:
            self._record(outcome)
        finally:
            self.record_seconds.append(time.perf_counter() - started)

    def _record(self, outcome: GameOutcome) -> None:
        spec = outcome.spec
        self.state.pgn_offset = self.pgn.append(outcome.pgn)
        if self.epd.path is not None:
            self.state.epd_offset = self.epd.append(outcome.final_fen, separator="\n")
        if self.log.path is not None:
            header = f"# game {spec.index + 1} (round {spec.round}): {spec.white} - {spec.black}, {outcome.result}"
            self.state.log_offset = self.log.append(f"{header}\n{outcome.log}")
        game = FinishedGame(spec.index, spec.pair, spec.round, spec.white, spec.black, spec.opening,
                            outcome.result, outcome.termination, outcome.reason, outcome.plies)
        self.state.games.append(game)
        status = sprt_of(self.config, self.state.games)
        if status is not None and status.decision and not self.state.stopped:
            self.state.stopped = sprt_line(self.config, status)
            self.stop = True
        self.store.append(self.state, game,
                          sync_first=[fd for fd in (self.pgn.fileno(), self.epd.fileno(), self.log.fileno())
                                      if fd is not None])
        self.progress.update(self.state.games, game)
        for observer in self.observers:
            observer.finished(game, outcome.pgn)
        if not self.config.recover and outcome.termination in ("abandoned", "stalled connection"):
            # Not kept in the state file: unlike an SPRT decision, -resume should play on.
            self.stream.write(f"Stopping: game {spec.index + 1} ended with an engine crash or stall "
                              f"(-recover is off): {outcome.reason}\n")
            self.stream.flush()
            self.stop = True
            if self.crash_stop is None:
                self.crash_stop = f"game {spec.index + 1} ended with an engine crash or stall ({outcome.reason})"


def record_cost_line(seconds: list[float], share: float = 0.1) -> str | None:
    """How long recording a game took, early in the run against late; None below 50 games."""
    if len(seconds) < 50:
        return None
    count = max(1, int(len(seconds) * share))

    def figures(part: list[float]) -> str:
        return f"{1000 * sum(part) / len(part):.2f} ms mean, {1000 * max(part):.2f} ms max"

    return (f"Recording a game (PGN, state journal, display): first {count} games {figures(seconds[:count])}; "
            f"last {count} games {figures(seconds[-count:])}")


def check_variant(config: TournamentConfig, probes: dict[str, ProbeResult]) -> None:
    """Raise ``ConfigError`` if a UCI engine of a Chess960 run does not declare ``UCI_Chess960``."""
    if config.variant != "fischerandom":
        return
    for engine in config.engines:
        probe_result = probes.get(engine.name)
        if engine.protocol == "uci" and probe_result is not None and probe_result.options \
                and "UCI_Chess960" not in probe_result.options:
            raise ConfigError(f"engine {engine.name!r} does not declare UCI_Chess960: it cannot play "
                              f"-variant fischerandom")


def new_seed() -> int:
    return random.SystemRandom().randrange(1 << 31)
