"""What recording a finished game costs the runner's event loop, early and late in a long run.

``python -m tools.journal_bench [--games 5000] [--dir DIR] [--record]``

Records synthetic finished games through the real state code
(``tournaments.state.StateStore.append``, or with ``--record`` the whole
``Runner.record``: PGN append, SPRT and progress line too) inside an asyncio
loop, as the runner does, and prints for the first, middle and last 500
games: the time each call held the loop, and the worst lateness of a 1 ms
timer running beside it (what an engine's clock would be charged, including
the writer thread's fsyncs and compactions). Then, for comparison, the cost
of the state write the runner did before the journal (the whole file
rewritten with ``json.dump`` and two fsyncs after every game) at the same
points. Times are wall-clock on this machine's disk; run it on a quiet one.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import shutil
import statistics
import tempfile
import time
from dataclasses import asdict, dataclass

from tournaments.config import EngineConfig, SprtConfig, TournamentConfig
from tournaments.game import GameOutcome, GameSpec
from tournaments.runner import Runner
from tournaments.state import FinishedGame, RunState, StateStore, load_state

WINDOW = 500
RESULTS = ("1-0", "0-1", "1/2-1/2")
# A typical PGN game's length in bytes, for --record's PGN appends.
PGN_BYTES = 2500


def old_rewrite(path: str, state: RunState) -> None:
    """The runner's state write before the journal (kept here only to compare against)."""
    data = {"version": 1, "config": state.config, "seed": state.seed, "pgn_offset": state.pgn_offset,
            "stopped": state.stopped, "epd_offset": state.epd_offset, "log_offset": state.log_offset,
            "games": [asdict(g) for g in state.games]}
    tmp = f"{path}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(data, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    directory = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


def bench_config(sprt: bool) -> TournamentConfig:
    engines = [EngineConfig("Kestrel", ["python", "-m", "uci_engine"]), EngineConfig("Stockfish", ["stockfish"])]
    return TournamentConfig(engines=engines, games=2, rounds=10_000, concurrency=2,
                            sprt=SprtConfig(0.0, 5.0) if sprt else None, report_every=1_000_000)


def synthetic_game(index: int) -> FinishedGame:
    white, black = ("Kestrel", "Stockfish") if index % 2 == 0 else ("Stockfish", "Kestrel")
    return FinishedGame(index, index // 2, index // 2 + 1, white, black, index // 2,
                        RESULTS[(index * 7919) % 3], "adjudication", "Draw by adjudication (scores)", 80 + index % 60)


def outcome_of(game: FinishedGame) -> GameOutcome:
    spec = GameSpec(game.index, game.round, game.pair, game.white, game.black, game.opening)
    return GameOutcome(spec, game.result, game.termination, game.reason, "x" * PGN_BYTES, game.plies)


@dataclass
class Measured:
    costs: list[float]  # per game: seconds the record call held the loop
    lags: list[float]  # per game: the worst timer lateness while it and its writes ran
    idle: list[float]  # the worst lateness per game-sized interval before any game (the machine's noise)
    compactions: list[int]  # games whose record started a compaction on the writer thread


async def measure(games: int, folder: str, through_runner: bool) -> Measured:
    """Record ``games`` synthetic games in an asyncio loop beside a 1 ms timer."""
    config = bench_config(sprt=through_runner)
    state = RunState(config=config.to_dict(), seed=1)
    path = os.path.join(folder, "bench.pgn.state.json")
    runner: Runner | None = None
    if through_runner:
        from tournaments.pgnout import PgnWriter
        runner = Runner(config, state, path, stream=io.StringIO())
        runner.pgn = PgnWriter(os.path.join(folder, "bench.pgn"))
        store = runner.store
    else:
        store = StateStore(path)
    store.snapshot(state)
    lateness: list[float] = []
    stop = False

    async def ticker() -> None:
        while not stop:
            start = time.perf_counter()
            await asyncio.sleep(0.001)
            lateness.append(time.perf_counter() - start - 0.001)

    tick = asyncio.create_task(ticker())
    # The machine's own noise first: the same loop with nothing recorded.
    idle = []
    for _ in range(WINDOW):
        seen = len(lateness)
        await asyncio.sleep(0.003)
        idle.append(max(lateness[seen:], default=0.0))
    costs, lags = [], []
    compactions: list[int] = []  # the games whose record started a compaction
    for index in range(games):
        generation = store.generation
        game = synthetic_game(index)
        seen = len(lateness)
        start = time.perf_counter()
        if runner is not None:
            runner.record(outcome_of(game))
        else:
            state.games.append(game)
            state.pgn_offset += PGN_BYTES
            store.append(state, game)
        costs.append(time.perf_counter() - start)
        if store.generation != generation:
            compactions.append(index)
        # Let the timer and the writer thread run, as between two games of a real run.
        await asyncio.sleep(0.003)
        lags.append(max(lateness[seen:], default=0.0))
    stop = True
    await tick
    store.close(state)
    assert len(load_state(path).games) == games
    return Measured(costs, lags, idle, compactions)


def windows(games: int) -> list[tuple[str, int, int]]:
    middle = games // 2 - WINDOW // 2
    return [("first", 0, WINDOW), ("middle", middle, middle + WINDOW), ("last", games - WINDOW, games)]


def ms(value: float) -> str:
    return f"{1000 * value:7.2f}"


def old_costs(games: int, folder: str, samples: int = 5) -> dict[int, float]:
    """Median seconds of the old whole-file rewrite with 1, games/2 and games finished games."""
    config = bench_config(sprt=False)
    path = os.path.join(folder, "old.state.json")
    result = {}
    for count in (WINDOW, games // 2, games):
        state = RunState(config=config.to_dict(), seed=1, games=[synthetic_game(i) for i in range(count)])
        times = []
        for _ in range(samples):
            start = time.perf_counter()
            old_rewrite(path, state)
            times.append(time.perf_counter() - start)
        result[count] = statistics.median(times)
    return result


def report(games: int, m: Measured, old: dict[int, float], what: str) -> str:
    costs, lags, idle = m.costs, m.lags, sorted(m.idle)
    lines = [f"{games} games through {what}; ms per game (the loop held by the call / worst 1 ms-timer lateness):",
             "  window   games          call mean   p50     p99     max  | timer lateness p50  p99     max"]
    lines.append(f"  nothing recorded ({len(idle)} intervals)                         |  {ms(idle[len(idle) // 2])} "
                 f"{ms(idle[int(0.99 * len(idle))])} {ms(idle[-1])}")
    for name, lo, hi in windows(games):
        c, lag = sorted(costs[lo:hi]), sorted(lags[lo:hi])
        lines.append(f"  {name:<7} {lo + 1:>6}-{hi:<6}  {ms(statistics.mean(c))} {ms(c[len(c) // 2])} "
                     f"{ms(c[int(0.99 * len(c))])} {ms(c[-1])} |  {ms(lag[len(lag) // 2])} "
                     f"{ms(lag[int(0.99 * len(lag))])} {ms(lag[-1])}")
    for first in m.compactions:
        window = lags[first:first + 100]
        lines.append(f"  compaction at game {first + 1}: the next {len(window)} games, call max "
                     f"{ms(max(costs[first:first + 100]))}, timer lateness max {ms(max(window))}")
    lines.append("the old per-game write (whole state file rewritten, json.dump and two fsyncs), median of 5:")
    lines += [f"  with {count:>6} games: {ms(cost)} ms" for count, cost in old.items()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.journal_bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=5000, help="finished games to record (at least 1500)")
    parser.add_argument("--dir", default=None, help="folder for the files (default: a temporary folder)")
    parser.add_argument("--record", action="store_true",
                        help="go through Runner.record (PGN append, SPRT, progress) rather than the state store alone")
    args = parser.parse_args(argv)
    if args.games < 3 * WINDOW:
        parser.error(f"--games must be at least {3 * WINDOW}")
    folder = tempfile.mkdtemp(prefix="journal-bench-", dir=args.dir)
    try:
        measured = asyncio.run(measure(args.games, folder, args.record))
        old = old_costs(args.games, folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    what = "Runner.record (PGN, SPRT, progress, state journal)" if args.record else "StateStore.append"
    print(report(args.games, measured, old, what))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
