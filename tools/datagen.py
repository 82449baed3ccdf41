"""Training games for the learned evaluation, from Kestrel's own play: a process that never stops.

``python -m tools.datagen generate --out DIR --positions N`` plays Kestrel against itself at a fixed
soft node count (the C search called in-process: no UCI round trip, a small hash cleared only between
games) with the built-in net (or ``--eval-file NET``, or ``--weighted``), from a book's lines plus
random plies, and writes each finished game in the compact game format (``tools/game_records.py``):
the start position, then a move and its search score a ply.  Every searched position is kept; the
filters that pick training positions run when the games become training records
(``merge``), so they can change without playing again.

- **Openings.** A book line, random plies, then a short search: an opening whose score is beyond
  ``--opening-bound`` centipawns is dropped (a lopsided game teaches little) and another drawn.
- **Shards.** Every worker's games go to its own file ``DIR/<worker>.kgame``; the coordinator alone
  writes, a whole game at a time, so a killed worker loses at most the game it was playing, and a
  killed coordinator at most a partial game, cut off on resume.
- **Resume.** Running the same command again continues until DIR holds N positions; game numbers go
  on from ``DIR/datagen.json``, so the new games are new.
- **In the background.** ``--nice 19`` lowers the run's priority; ``DIR/datagen.pid`` names the
  running generator, and ``python -m tools.datagen paused DIR -- COMMAND...`` stops it (SIGSTOP) while
  COMMAND runs (a match whose figures are reported), then lets it go on; ``pause DIR`` and
  ``resume DIR`` do each half alone.
- **Workers.** ``--workers K`` local processes, or ``--dask local:K`` / ``--dask SCHEDULER`` to spread
  the games over a Dask cluster (each worker needs Kestrel installed).
- ``python -m tools.datagen merge FILE... -o OUT.kpos [--dedup] [--shuffle] [--mirror]`` turns games
  (and ``.kpos`` files) into training records (numpy: ``pip install '.[nnue]'``); ``stats FILE...``
  summarises files; ``split FILE --games N HEAD REST`` cuts a game file in two at a game boundary
  (a held-out set).  Generating needs nothing beyond the engine.

Games end by the rules, by a mate score (the side with the mate wins), by the runner's own
adjudication (``tournaments/adjudication.py``: both sides' scores beyond ``--resign-score`` for two
moves each; within ``--draw-score`` for six moves each after move 40), by the engine's Syzygy tables
with ``--syzygy DIR`` (``uci_engine/tablebases.py``), or as a draw after ``--max-plies``.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import multiprocessing
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, fields
from typing import Any

from search.limits import MAX_HASH_MB
from tools.arguments import readable_file
from tools.game_records import (
    GAME_SUFFIX,
    MATE_LIMIT,
    Filters,
    cut_partial_game,
    encode_score,
    pack_game,
    split_games,
    training_array,
    whole_games,
)
from tools.nnue_data import RECORD_SIZE, RESULT_DRAW, RESULT_LOSS, RESULT_WIN, first_bad_record, load_array

MANIFEST = "datagen.json"
PID_FILE = "datagen.pid"


@dataclass(frozen=True)
class Settings:
    """How each game is played; every worker receives a copy."""

    soft_nodes: int = 5000
    hard_nodes: int = 50000
    hash_mb: int = 4
    random_plies: int = 8
    book: str | None = None
    book_lines: tuple[str, ...] = ()
    opening_bound: int = 600          # centipawns: an opening searched beyond this is dropped
    resign_score: int = 1000
    resign_moves: int = 2             # each side's, so 4 plies
    draw_score: int = 10
    draw_moves: int = 6               # each side's, so 12 plies
    draw_after_move: int = 40
    max_plies: int = 400
    syzygy: str | None = None
    eval_file: str | None = None      # a net file to play with; None: the built-in net
    weighted: bool = False            # play with the weighted evaluation instead of a net


@dataclass
class GameRecords:
    """One finished game: its bytes, ready to append, and how it ended."""

    index: int
    data: bytes
    positions: int
    plies: int
    result: str
    worker: str


# One searcher per worker process, made on its first game: a new one per game would allocate the
# hash table each time.
_SEARCHER: Any = None
_SEARCHER_KEY: tuple[int, str | None, bool] | None = None      # the settings it was made for
_PROBE: tuple[Callable[[str], int | None], int] | None = None
_WORKER_SETTINGS: Settings | None = None      # a local worker's, from its start


def _searcher(settings: Settings) -> Any:
    global _SEARCHER, _SEARCHER_KEY
    from search.alphabeta_searcher import AlphaBetaSearcher
    key = (settings.hash_mb, settings.eval_file, settings.weighted)
    if _SEARCHER is None or _SEARCHER_KEY != key:
        _SEARCHER = AlphaBetaSearcher(hash_mb=settings.hash_mb, threads=1)
        _SEARCHER_KEY = key
        if not settings.weighted:
            from eval.networks import builtin_network, load_network
            network = load_network(settings.eval_file)[0] if settings.eval_file else builtin_network()
            _SEARCHER.set_network(network)
    return _SEARCHER


def _tablebase_probe(settings: Settings) -> tuple[Callable[[str], int | None], int]:
    """The engine's WDL probe of the tables in ``settings.syzygy`` (fen -> -2..2 or None) and the most
    men a table there holds, once a process."""
    global _PROBE
    if _PROBE is None:
        from uci_engine.tablebases import Tablebases
        tables = Tablebases()
        tables.open(settings.syzygy or "")
        _PROBE = (tables.wdl_prober(fifty_move_rule=True) or (lambda fen: None), tables.max_pieces)
    return _PROBE


def prepare_player(settings: Settings) -> None:
    """What a process sets up once, on its first game (imports, the searcher and its net, the
    tables), done now: the benchmark keeps it out of its per-game figures."""
    import chess  # noqa: F401 - imported for its cost

    import tournaments.adjudication  # noqa: F401
    _searcher(settings)
    if settings.syzygy:
        _tablebase_probe(settings)


def _tablebase_result(position: Any, settings: Settings) -> int | None:
    """RESULT_* from the side to move's view when the tables know the position; None otherwise."""
    probe, most_men = _tablebase_probe(settings)
    # No table holds castling rights, or more men than the largest there (the shared set stops at
    # 4: a probe of each 5-man position, 13% of them, cost 60 us and always missed).
    if position.castling_rights or sum(position.piece_counts().values()) > most_men:
        return None
    try:
        wdl = probe(position.fen())
    except (OSError, ValueError, KeyError):      # a damaged table: play the game out
        return None
    if wdl is None:
        return None
    return RESULT_WIN if wdl > 0 else RESULT_LOSS if wdl < 0 else RESULT_DRAW


def _opening(rng: random.Random, settings: Settings) -> Any:
    """A book line (when given) and then random legal plies; None if the plies ended the game."""
    from search.board.position import Position
    if settings.book_lines:
        position = Position(rng.choice(settings.book_lines))
    else:
        position = Position()
    # An odd count now and then, so that both colours move first out of the opening.
    for _ in range(settings.random_plies + rng.randint(0, 1)):
        moves = position.legal_moves()
        if not moves:
            return None
        position.push(rng.choice(moves))
    return position if position.outcome() is None else None


def _balanced_opening(rng: random.Random, settings: Settings, searcher: Any, limits: Any) -> Any:
    """An opening whose short search stays within ``opening_bound``: lopsided games teach little."""
    while True:
        position = _opening(rng, settings)
        if position is None:
            continue
        result = searcher.search(position, limits)
        if result.score[0] == "cp" and abs(result.score[1]) <= settings.opening_bound:
            return position


def _adjudicator(settings: Settings) -> Any:
    from tournaments.adjudication import Adjudicator
    from tournaments.config import AdjudicationConfig
    return Adjudicator(AdjudicationConfig(
        draw_movenumber=settings.draw_after_move, draw_movecount=settings.draw_moves,
        draw_score=settings.draw_score, resign_movecount=settings.resign_moves,
        resign_score=settings.resign_score, resign_twosided=True))


def play_game(index: int, seed: int, settings: Settings) -> GameRecords:
    """Play game number `index` of the run seeded `seed`; the game's record, every searched ply kept."""
    import chess

    from search.limits import SearchLimits
    from search.scores import MATE_CP
    rng = random.Random(seed * 1_000_003 + index)
    searcher = _searcher(settings)
    searcher.clear()
    limits = SearchLimits(nodes=settings.hard_nodes, soft_nodes=settings.soft_nodes)
    position = _balanced_opening(rng, settings, searcher, limits)
    start_fen = position.fen()
    board = chess.Board(start_fen)     # the runner's adjudication reads a python-chess board
    adjudicator = _adjudicator(settings)
    moves: list[str] = []
    scores: list[int] = []
    white_result: int | None = None    # RESULT_* from White's view
    while white_result is None:
        outcome = position.outcome()
        if outcome is not None:
            white_result = {"1-0": RESULT_WIN, "0-1": RESULT_LOSS}.get(outcome, RESULT_DRAW)
            break
        white = position.turn
        if settings.syzygy:
            table_result = _tablebase_result(position, settings)
            if table_result is not None:
                white_result = table_result if white else RESULT_WIN - table_result
                break
        if len(moves) >= settings.max_plies:
            white_result = RESULT_DRAW
            break
        result = searcher.search(position, limits)
        kind, value = result.score
        moves.append(result.best_move)
        scores.append(encode_score(kind, value))
        if kind == "mate":
            side_result = RESULT_WIN if value > 0 else RESULT_LOSS
            white_result = side_result if white else RESULT_WIN - side_result
            break
        position.push(result.best_move)
        # The search's move is legal: push_uci would check it again, at two thirds of its cost.
        board.push(chess.Move.from_uci(result.best_move))
        adjudicator.record(value if kind == "cp" else MATE_CP)
        verdict = adjudicator.verdict(board)
        if verdict is not None:
            white_result = {"1-0": RESULT_WIN, "0-1": RESULT_LOSS}.get(verdict.result, RESULT_DRAW)
    name = {RESULT_WIN: "1-0", RESULT_LOSS: "0-1", RESULT_DRAW: "1/2-1/2"}[white_result]
    data = pack_game(start_fen, white_result, moves, scores)
    return GameRecords(index, data, len(moves), len(moves), name, _worker_name())


def _worker_name() -> str:
    """The shard this process's games go to: the Dask worker's name, or the process id."""
    try:
        from distributed import get_worker
        address = str(get_worker().address)
        return "dask-" + "".join(c if c.isalnum() else "-" for c in address).strip("-")
    except (ImportError, ValueError):
        return f"local-{os.getpid()}"


class ShardWriter:
    """Appends whole games to one file per worker under a directory, and keeps the manifest."""

    def __init__(self, directory: str, seed: int, settings: Settings) -> None:
        self.directory = directory
        os.makedirs(directory, exist_ok=True)
        self.handles: dict[str, Any] = {}
        self.positions = cut = 0
        for name in sorted(os.listdir(directory)):
            if name.endswith(GAME_SUFFIX):
                path = os.path.join(directory, name)
                # A coordinator killed inside a write: drop the partial game.
                _, plies, _, dropped = cut_partial_game(path)
                cut += dropped > 0
                self.positions += plies
        if cut:
            print(f"datagen: cut a partial game off {cut} shard(s)", file=sys.stderr)
        manifest = self._read_manifest()
        self.games = int(manifest.get("games", 0))
        self.seed = int(manifest.get("seed", seed))
        self.settings = settings
        self.last_sync = time.monotonic()

    def _read_manifest(self) -> dict[str, Any]:
        try:
            with open(os.path.join(self.directory, MANIFEST)) as handle:
                data = json.load(handle)
            return data if isinstance(data, dict) else {}
        except (OSError, ValueError):
            return {}

    def append(self, game: GameRecords) -> None:
        handle = self.handles.get(game.worker)
        if handle is None:
            handle = open(os.path.join(self.directory, game.worker + GAME_SUFFIX), "ab")
            self.handles[game.worker] = handle
        # Ctrl-C or SIGTERM between the write and the count would leave a game on disk that the
        # manifest does not count: both are held off until the game is written and counted
        # (POSIX; Windows has no signal mask).
        masking = hasattr(signal, "pthread_sigmask")
        held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM}) if masking else set()
        try:
            handle.write(game.data)
            handle.flush()
            self.positions += game.positions
            self.games += 1
        finally:
            if masking:
                signal.pthread_sigmask(signal.SIG_SETMASK, held)
        if time.monotonic() - self.last_sync > 30:
            self.sync()

    def sync(self) -> None:
        """Flush every shard to disk, then record the games played (the manifest may lag the data)."""
        for handle in self.handles.values():
            os.fsync(handle.fileno())
        # Field by field: asdict() would deep-copy the book's lines (33 ms a sync for 40,457 of them).
        settings = {field.name: getattr(self.settings, field.name) for field in fields(Settings)
                    if field.name != "book_lines"}
        path = os.path.join(self.directory, MANIFEST)
        with open(path + ".tmp", "w") as handle:
            json.dump({"seed": self.seed, "games": self.games, "positions": self.positions,
                       "settings": settings}, handle, indent=1)
        os.replace(path + ".tmp", path)
        self.last_sync = time.monotonic()

    def close(self) -> None:
        self.sync()
        for handle in self.handles.values():
            handle.close()


class Progress:
    """One status line every few seconds: positions, rate, games and the time left.

    The rate counts running time only. `datagen paused` stops the generator with SIGSTOP, and the
    monotonic clock runs on while it is stopped: an hour's pause would otherwise read as a rate that
    recovers only after hours. `continued()` (the SIGCONT handler) marks a stop; the time since the
    last game the generator saw before it is then left out."""

    def __init__(self, start_positions: int, target: int, every: float = 10.0) -> None:
        self.start_positions = start_positions
        self.target = target
        self.every = every
        self.started = self.last = self.last_call = time.monotonic()
        self.stopped_seconds = 0.0
        self.was_stopped = False

    def continued(self) -> None:
        """The process was stopped and has just been continued (safe from a signal handler)."""
        self.was_stopped = True

    def update(self, positions: int, games: int, force: bool = False) -> None:
        now = time.monotonic()
        if self.was_stopped:
            # Games arrive many times a second while it runs, so the gap since the last one is the stop.
            self.was_stopped = False
            self.stopped_seconds += now - self.last_call
        self.last_call = now
        if not force and now - self.last < self.every:
            return
        self.last = now
        running = now - self.started - self.stopped_seconds
        rate = (positions - self.start_positions) / max(1e-9, running)
        left = max(0, self.target - positions) / rate if rate > 0 else float("inf")
        eta = "-" if left == float("inf") else f"{int(left // 3600)}h{int(left % 3600 // 60):02d}m"
        stopped = f", stopped {int(self.stopped_seconds // 60)} min" if self.stopped_seconds >= 60 else ""
        print(f"datagen: {positions:,} / {self.target:,} positions, {rate:.0f} pos/s, {games:,} games, "
              f"ETA {eta}{stopped}", file=sys.stderr, flush=True)


def _local_games(workers: int, first: int, seed: int, settings: Settings) -> Iterator[GameRecords]:
    """Games from `workers` local processes, numbered from `first`, for as long as the caller reads.
    A worker process that dies takes its game with it; the pool is rebuilt and the game replayed."""
    next_index = first
    replay: list[int] = []
    while True:
        pool = concurrent.futures.ProcessPoolExecutor(max_workers=workers, initializer=_start_local_worker,
                                                      initargs=(settings,))
        pending: dict[concurrent.futures.Future[GameRecords], int] = {}
        try:
            while True:
                while len(pending) < 2 * workers:
                    if replay:
                        index = replay.pop()
                    else:
                        index, next_index = next_index, next_index + 1
                    pending[pool.submit(_play_local_game, index, seed)] = index
                done, _ = concurrent.futures.wait(pending, return_when=concurrent.futures.FIRST_COMPLETED)
                # In game order: a set's order is arbitrary, and games finished together should
                # not overtake each other.
                for future in sorted(done, key=pending.__getitem__):
                    game = future.result()
                    del pending[future]
                    yield game
        except concurrent.futures.process.BrokenProcessPool:
            print("datagen: a worker process died; its game is replayed", file=sys.stderr)
            replay = sorted(pending.values(), reverse=True)
        finally:
            # Stopping (the target reached, Ctrl-C, SIGTERM): the games in flight are dropped, and
            # each worker exits after the game it is playing instead of the coordinator waiting.
            pool.shutdown(wait=False, cancel_futures=True)


def _start_local_worker(settings: Settings) -> None:
    """A local worker's start.  It keeps the settings: sent with every game, a book's 40,457 lines
    were 2.6 MB to pickle, pipe and unpickle a game.  It ignores Ctrl-C and SIGTERM, which reach the
    whole process group (a terminal, `timeout`, a service manager): a worker stopped inside a queue
    operation can leave the coordinator waiting for ever on a half-sent result.  The coordinator
    alone decides, and kills its workers when it stops."""
    global _WORKER_SETTINGS
    _WORKER_SETTINGS = settings
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


def _play_local_game(index: int, seed: int) -> GameRecords:
    """Game `index` of a local worker, with the settings its start kept."""
    if _WORKER_SETTINGS is None:
        raise RuntimeError("a local worker plays only after _start_local_worker")
    return play_game(index, seed, _WORKER_SETTINGS)


def _dask_games(address: str, first: int, seed: int, settings: Settings) -> Iterator[GameRecords]:
    """Games as Dask tasks, two in flight per worker thread; a task lost with its worker is rerun
    by Dask, and a task that fails stops the run with its error (never a recorded game)."""
    from tournaments.dask_backend import import_distributed
    distributed = import_distributed()
    if address.startswith("local:"):
        cluster = distributed.LocalCluster(n_workers=int(address[6:]), threads_per_worker=1, processes=True,
                                           dashboard_address=None)
        client = distributed.Client(cluster)
    else:
        cluster = None
        client = distributed.Client(address)
    try:
        client.wait_for_workers(1, timeout=60)
        slots = max(1, 2 * sum(client.nthreads().values()))
        next_index = first
        futures = []
        for _ in range(slots):
            futures.append(client.submit(play_game, next_index, seed, settings, pure=False, retries=2))
            next_index += 1
        queue = distributed.as_completed(futures)
        for future in queue:
            try:
                yield future.result()
            except Exception as err:
                raise SystemExit(f"datagen: a game failed on a Dask worker: {err}") from err
            queue.add(client.submit(play_game, next_index, seed, settings, pure=False, retries=2))
            next_index += 1
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def generate(directory: str, target: int, settings: Settings, seed: int, workers: int = 1,
             dask: str | None = None, progress_every: float = 10.0,
             games: Callable[..., Iterable[GameRecords]] | None = None) -> int:
    """Play until `directory` holds `target` positions; the number of positions it holds then."""
    writer = ShardWriter(directory, seed, settings)
    progress = Progress(writer.positions, target, progress_every)
    if writer.positions >= target:
        writer.close()
        return writer.positions
    if games is None:
        source: Iterable[GameRecords] = (_dask_games(dask, writer.games, writer.seed, settings) if dask
                                         else _local_games(workers, writer.games, writer.seed, settings))
    else:
        source = games(writer.games, writer.seed, settings)
    pid_file = os.path.join(directory, PID_FILE)
    with open(pid_file, "w") as handle:
        handle.write(f"{os.getpid()}\n")
    # Only the main thread may set a handler; a generator run from another thread shows wall-clock rates.
    in_main_thread = threading.current_thread() is threading.main_thread()
    if in_main_thread:
        on_continue = signal.signal(signal.SIGCONT, lambda number, frame: progress.continued())
    try:
        for game in source:
            writer.append(game)
            progress.update(writer.positions, writer.games)
            if writer.positions >= target:
                break
    finally:
        if hasattr(source, "close"):
            source.close()
        writer.close()
        progress.update(writer.positions, writer.games, force=True)
        if in_main_thread:
            signal.signal(signal.SIGCONT, on_continue if on_continue is not None else signal.SIG_DFL)
        try:
            os.remove(pid_file)
        except OSError:
            pass
    return writer.positions


def mirrored(records: Any) -> Any:
    """The records (an (N, 32) uint8 array) of positions without castling rights, mirrored left to
    right (a-file <-> h-file): chess is the same game there, so each is one more training position
    with the same score and result.  Records with castling rights are left out (castling is not
    symmetric)."""
    import numpy as np
    kept = records[(records[:, 27] & 0x0F) == 0]
    count = len(kept)
    occupied = kept[:, :8].copy().view("<u8").ravel()
    squares = np.arange(64, dtype=np.uint64)
    bits = ((occupied[:, None] >> squares) & np.uint64(1)).astype(bool)
    nibbles = np.empty((count, 32), dtype=np.uint8)
    nibbles[:, 0::2] = kept[:, 8:24] & 15
    nibbles[:, 1::2] = kept[:, 8:24] >> 4
    # The k-th occupied square (in increasing order) holds the k-th nibble.
    rank = np.clip(np.cumsum(bits, axis=1) - 1, 0, 31)
    board = np.where(bits, np.take_along_axis(nibbles, rank, axis=1), 12).astype(np.uint8)
    board = board[:, np.arange(64) ^ 7]
    bits = board != 12
    out = kept.copy()
    out[:, :8] = (bits.astype(np.uint64) << squares).sum(axis=1).astype("<u8").view(np.uint8).reshape(count, 8)
    order = np.argsort(~bits, axis=1, kind="stable")[:, :32]
    codes = np.take_along_axis(board, order, axis=1)
    codes[np.arange(32)[None, :] >= bits.sum(axis=1)[:, None]] = 0
    out[:, 8:24] = codes[:, 0::2] | (codes[:, 1::2] << 4)
    ep = out[:, 28]
    out[:, 28] = np.where(ep < 64, ep ^ 7, ep)
    return out


def _input_records(path: str, filters: Filters) -> Any:
    """The training records of one input: a .kpos file as it is (checked record by record), a
    .kgame file's games filtered."""
    import numpy as np
    if path.endswith(GAME_SUFFIX):
        return training_array(path, filters)
    if os.path.getsize(path) % RECORD_SIZE:
        raise ValueError(f"{path}: {os.path.getsize(path)} bytes is not a whole number of {RECORD_SIZE}-byte records")
    records = np.asarray(load_array(path)).view(np.uint8).reshape(-1, RECORD_SIZE)
    found = first_bad_record(records)
    if found is not None:
        raise ValueError(f"{path}: record {found[0]}: {found[1]}; not a valid .kpos file")
    return records


def merge(inputs: list[str], output: str, dedup: bool, shuffle: bool, seed: int,
          mirror: bool = False, filters: Filters | None = None) -> tuple[int, int, int]:
    """Training records from games and record files into `output`; (records read, mirror images
    added, records written).  Games become the records of the positions `filters` keep.  With
    `dedup`, the first record of each position is kept (the board, side to move, castling and en
    passant: the same position with other labels or clocks is a duplicate).  numpy does the work,
    so tens of millions of records take seconds, not a Python set.  With `mirror`, the left-right
    mirror images of the positions without castling rights are added (before the de-duplication)."""
    import numpy as np
    parts = [_input_records(path, filters or Filters()) for path in inputs]
    records = np.concatenate(parts) if parts else np.zeros((0, RECORD_SIZE), dtype=np.uint8)
    read = len(records)
    if mirror and read:
        records = np.concatenate([records, mirrored(records)])
    added = len(records) - read
    if dedup and read:
        key = np.ascontiguousarray(np.concatenate([records[:, :24], records[:, 27:29]], axis=1))
        _, first = np.unique(key.view(np.dtype((np.void, key.shape[1]))).ravel(), return_index=True)
        records = records[np.sort(first)]
    if shuffle:
        records = records[np.random.default_rng(seed).permutation(len(records))]
    records.tofile(output + ".tmp")
    os.replace(output + ".tmp", output)
    return read, added, len(records)


def stats(paths: list[str]) -> dict[str, float]:
    """Games, positions, results and score spread of game files (.kgame) and record files (.kpos)."""
    from tools.nnue_data import read_records
    games = positions = wins = draws = losses = mates = 0
    total_abs = 0
    results = {RESULT_WIN: 0, RESULT_DRAW: 0, RESULT_LOSS: 0}
    for path in paths:
        if path.endswith(GAME_SUFFIX):
            for game in whole_games(path):
                games += 1
                results[game.result] += 1
                positions += len(game.scores)
                mates += sum(abs(score) > MATE_LIMIT for score in game.scores)
                total_abs += sum(abs(score) for score in game.scores if abs(score) <= MATE_LIMIT)
            continue
        for record in read_records(path):
            positions += 1
            wins += record.result == RESULT_WIN
            draws += record.result == RESULT_DRAW
            losses += record.result == RESULT_LOSS
            total_abs += abs(record.score)
    summary: dict[str, float] = {"positions": positions,
                                 "mean_abs_score": total_abs / max(1, positions - mates)}
    if games:
        summary.update({"games": games, "white_wins": results[RESULT_WIN], "draws": results[RESULT_DRAW],
                        "black_wins": results[RESULT_LOSS], "mate_scores": mates,
                        "plies_per_game": positions / games})
    if wins + draws + losses:
        summary.update({"wins": wins, "draws": draws, "losses": losses})
    return summary


def _generator_processes(directory: str) -> list[int]:
    """The running generator of `directory` and its worker processes (pids); empty when none runs."""
    try:
        with open(os.path.join(directory, PID_FILE)) as handle:
            pid = int(handle.read().strip())
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            if b"datagen" not in handle.read():
                return []          # a stale file whose pid now belongs to something else
    except (OSError, ValueError):
        return []
    parents: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as handle:
                    # The parent is the second field after the command, which may hold spaces.
                    parents[int(name)] = int(handle.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
    family = [pid]
    for process in family:
        family.extend(child for child, parent in parents.items() if parent == process)
    return family


def signal_generator(directory: str, signum: int) -> int:
    """Send `signum` to the generator of `directory` and its workers; how many processes got it."""
    sent = 0
    for pid in _generator_processes(directory):
        try:
            os.kill(pid, signum)
            sent += 1
        except OSError:
            continue
    return sent


def run_paused(directory: str, command: list[str]) -> int:
    """Run `command` with the generator of `directory` stopped, then let the generator go on; the
    command's exit status.  The generator is resumed however the command ends."""
    stopped = signal_generator(directory, signal.SIGSTOP)
    print(f"datagen: paused {stopped} generator process(es) of {directory}" if stopped
          else f"datagen: no generator runs for {directory}; running the command alone", file=sys.stderr)
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        return subprocess.call(command)
    except KeyboardInterrupt:
        return 130
    except OSError as err:
        print(f"datagen: cannot run {command[0]}: {err}", file=sys.stderr)
        return 127
    finally:
        signal.signal(signal.SIGTERM, previous)
        if stopped:
            signal_generator(directory, signal.SIGCONT)
            print(f"datagen: resumed the generator of {directory}", file=sys.stderr)


def _book_lines(path: str) -> tuple[str, ...]:
    """The book's positions as FENs (the first four fields of each line, clocks reset); ValueError
    naming the first line that is not a position, so a bad book stops the run before it starts."""
    from search.board.position import Position
    lines = []
    with open(path, errors="replace") as handle:
        for number, line in enumerate(handle, 1):
            fields = line.split()
            if not fields or fields[0].startswith("#"):
                continue
            fen = " ".join(fields[:4]) + " 0 1"
            try:
                if len(fields) < 4:
                    raise ValueError("fewer than four fields")
                Position(fen)
            except ValueError as err:
                raise ValueError(f"{path}:{number}: not a position ({err})") from err
            lines.append(fen)
    if not lines:
        raise ValueError(f"{path}: no positions")
    return tuple(lines)


def _file_name(text: str) -> str:
    """An argparse ``type=``: a regular file that can be read (never opened here: a FIFO would block)."""
    return str(readable_file(text))


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def add_game_arguments(parser: argparse.ArgumentParser) -> None:
    """The options that say how each game is played (``generate``'s, and the benchmark's)."""
    parser.add_argument("--soft-nodes", type=int, default=Settings.soft_nodes,
                        help="no new iteration after this many nodes (default %(default)s)")
    parser.add_argument("--hard-nodes", type=int, default=Settings.hard_nodes, help="node limit (default %(default)s)")
    parser.add_argument("--hash", type=int, default=Settings.hash_mb, help="MB per worker (default %(default)s)")
    parser.add_argument("--random-plies", type=int, default=Settings.random_plies,
                        help="random legal plies after the book line (default %(default)s, +0 or 1)")
    parser.add_argument("--book", type=_file_name, help="EPD file: each game starts from a random line of it")
    parser.add_argument("--opening-bound", type=int, default=Settings.opening_bound,
                        help="drop openings whose short search is beyond this many centipawns (default %(default)s)")
    parser.add_argument("--syzygy", help="Syzygy directory: positions the tables know end the game")
    parser.add_argument("--max-plies", type=int, default=Settings.max_plies)
    parser.add_argument("--seed", type=int, default=1)
    nets = parser.add_mutually_exclusive_group()
    nets.add_argument("--eval-file", type=_file_name, metavar="NET",
                      help="play with this net file (default: the built-in net)")
    nets.add_argument("--weighted", action="store_true", help="play with the weighted evaluation")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m tools.datagen", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    gen = commands.add_parser("generate", help="play games and write them")
    gen.add_argument("--out", required=True, help="directory of the shards (created; resumed when it exists)")
    gen.add_argument("--positions", type=int, required=True, help="stop once the directory holds this many")
    add_game_arguments(gen)
    gen.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="local processes (default: cores)")
    gen.add_argument("--dask", metavar="ADDRESS", help="local:N or a scheduler address instead of local processes")
    gen.add_argument("--nice", type=int, default=0, help="lower the run's priority by this much (19: background)")
    gen.add_argument("--progress-every", type=float, default=10.0, help="seconds between status lines")
    join = commands.add_parser("merge", help="training records (.kpos) from games (.kgame) and record files")
    join.add_argument("inputs", nargs="+", type=_file_name)
    join.add_argument("-o", "--output", required=True)
    join.add_argument("--dedup", action="store_true", help="keep the first record of each position")
    join.add_argument("--shuffle", action="store_true")
    join.add_argument("--mirror", action="store_true",
                      help="add the left-right mirror image of each position without castling rights")
    join.add_argument("--min-ply", type=int, default=0, help="skip each game's first plies (default 0)")
    join.add_argument("--keep-checks", action="store_true", help="keep positions in check")
    join.add_argument("--keep-noisy", action="store_true",
                      help="keep positions whose move is a capture or promotion")
    join.add_argument("--seed", type=int, default=1)
    cut = commands.add_parser("split", help="a game file's first games to one file, the rest to another")
    cut.add_argument("input", type=_file_name)
    cut.add_argument("--games", type=int, required=True, help="how many games go to HEAD")
    cut.add_argument("head", help="the first --games whole games (a held-out set, say)")
    cut.add_argument("rest", help="the other whole games")
    summary = commands.add_parser("stats", help="count and labels of game and record files")
    summary.add_argument("inputs", nargs="+", type=_file_name)
    for name, text in (("pause", "stop a running generator (SIGSTOP)"), ("resume", "let a paused generator go on")):
        commands.add_parser(name, help=text).add_argument("directory", help="the generator's --out")
    hold = commands.add_parser("paused", help="run a command with the generator paused: paused DIR -- COMMAND...")
    hold.add_argument("directory", help="the generator's --out")
    hold.add_argument("run", nargs=argparse.REMAINDER, metavar="-- COMMAND", help="the command and its arguments")
    return parser


def game_settings(parser: argparse.ArgumentParser, args: argparse.Namespace) -> Settings:
    """The settings of add_game_arguments' options, every input checked before a game is played."""
    if args.soft_nodes < 1 or args.hard_nodes < args.soft_nodes:
        parser.error("--soft-nodes must be positive and --hard-nodes at least --soft-nodes")
    if not 1 <= args.hash <= MAX_HASH_MB:
        parser.error(f"--hash must be 1 to {MAX_HASH_MB} MB")
    if args.random_plies < 0 or args.max_plies < 1 or args.opening_bound < 1:
        parser.error("--random-plies must be at least 0, --max-plies and --opening-bound at least 1")
    book_lines: tuple[str, ...] = ()
    if args.book:
        try:
            book_lines = _book_lines(args.book)
        except (OSError, ValueError) as err:
            parser.error(f"--book {err}")
    if args.syzygy:
        from uci_engine.tablebases import Tablebases
        tables = Tablebases()
        problems = tables.open(args.syzygy)
        if problems or not tables.available:
            parser.error(f"--syzygy {args.syzygy}: " + ("; ".join(problems) or "no tables"))
        tables.close()
    eval_file = os.path.abspath(args.eval_file) if args.eval_file else None
    if eval_file:
        from eval.networks import load_network
        try:
            load_network(eval_file)      # refused here, with its reason, not in every worker
        except Exception as err:       # noqa: BLE001 - any failure to load is the same refusal
            parser.error(f"--eval-file {args.eval_file}: {err}")
    return Settings(soft_nodes=args.soft_nodes, hard_nodes=args.hard_nodes, hash_mb=args.hash,
                    random_plies=args.random_plies, book=args.book, book_lines=book_lines,
                    opening_bound=args.opening_bound, max_plies=args.max_plies, syzygy=args.syzygy,
                    eval_file=eval_file, weighted=args.weighted)


def _settings(parser: argparse.ArgumentParser, args: argparse.Namespace) -> Settings:
    """The generate command's settings, every input checked before a game is played."""
    if args.positions < 1:
        parser.error("--positions must be at least 1")
    if args.workers < 1:
        parser.error("--workers must be at least 1")
    if not 0 <= args.nice <= 19:
        parser.error("--nice must be 0 to 19")
    try:
        os.makedirs(args.out, exist_ok=True)
        if not os.access(args.out, os.W_OK):
            raise PermissionError(f"{args.out} is not writable")
    except OSError as err:
        parser.error(f"--out {args.out}: {err}")
    return game_settings(parser, args)


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command == "merge":
        directory = os.path.dirname(os.path.abspath(args.output))
        if not os.path.isdir(directory) or not os.access(directory, os.W_OK):
            parser.error(f"-o {args.output}: {directory} is not a writable folder")
        if args.min_ply < 0:
            parser.error("--min-ply must be at least 0")
        filters = Filters(min_ply=args.min_ply, keep_checks=args.keep_checks, keep_noisy=args.keep_noisy)
        try:
            read, added, written = merge(args.inputs, args.output, args.dedup, args.shuffle, args.seed,
                                         args.mirror, filters)
        except ImportError:
            print("datagen: merge needs numpy: pip install '.[nnue]'", file=sys.stderr)
            return 2
        except ValueError as err:
            print(f"datagen: {err}", file=sys.stderr)
            return 1
        mirrors = f" and {added:,} mirror images" if args.mirror else ""
        print(f"merged {read:,} records{mirrors} into {written:,} ({read + added - written:,} duplicates dropped)")
        return 0
    if args.command == "split":
        if args.games < 0:
            parser.error("--games must be at least 0")
        try:
            head, rest = split_games(args.input, args.games, args.head, args.rest)
        except (OSError, ValueError) as err:
            print(f"datagen: {err}", file=sys.stderr)
            return 1
        print(f"datagen: {head:,} games to {args.head}, {rest:,} to {args.rest}")
        return 0
    if args.command == "stats":
        try:
            print(json.dumps(stats(args.inputs), indent=1))
        except (OSError, ValueError) as err:
            print(f"datagen: {err}", file=sys.stderr)
            return 1
        return 0
    if args.command in ("pause", "resume"):
        sent = signal_generator(args.directory, signal.SIGSTOP if args.command == "pause" else signal.SIGCONT)
        if not sent:
            print(f"datagen: no generator runs for {args.directory}", file=sys.stderr)
            return 1
        print(f"datagen: {args.command}d {sent} process(es)")
        return 0
    if args.command == "paused":
        command = args.run[1:] if args.run[:1] == ["--"] else args.run
        if not command:
            parser.error("paused: name the command after --")
        return run_paused(args.directory, command)
    settings = _settings(parser, args)
    if args.nice:
        os.nice(args.nice)          # the workers inherit it
    # A background run (nohup, a job scheduler) ignores Ctrl-C and is stopped by SIGTERM: both end
    # the run the same way, with the shards flushed and the manifest written.
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        generate(args.out, args.positions, settings, args.seed, workers=args.workers, dask=args.dask,
                 progress_every=args.progress_every)
    except KeyboardInterrupt:
        # The shards and the manifest are written by now.  The games in flight are dropped: the
        # workers are killed, and the process leaves without joining the pool's threads, which
        # would wait for those games to end.
        for worker in multiprocessing.active_children():
            worker.kill()
        print("datagen: interrupted; run the same command again to go on", file=sys.stderr)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(130)
    return 0


if __name__ == "__main__":
    sys.exit(main())
