"""Training positions for the learned evaluation, from Kestrel's own games.

``python -m tools.datagen generate --out DIR --positions N`` plays Kestrel against itself at a fixed
soft node count (the C search called in-process: no UCI round trip, a small hash cleared only between
games), from random openings or a book's lines plus random plies, and writes the quiet positions of
each finished game with its search score and the game's result (format: ``tools/nnue_data.py``).

- **Shards.** Every worker's games go to its own file ``DIR/<worker>.kpos``; the coordinator alone
  writes, a whole game at a time, so a killed worker loses at most the game it was playing, and a
  killed coordinator at most a partial record, cut off on resume.
- **Resume.** Running the same command again continues until DIR holds N positions; game numbers go
  on from ``DIR/datagen.json``, so the new games are new.
- **Workers.** ``--workers K`` local processes, or ``--dask local:K`` / ``--dask SCHEDULER`` to spread
  the games over a Dask cluster (each worker needs Kestrel installed).
- ``python -m tools.datagen merge SHARD... -o FILE [--dedup] [--shuffle]`` joins shards, keeping the
  first record of each position (numpy: ``pip install '.[nnue]'``); ``python -m tools.datagen stats
  FILE...`` summarises a file.  Generating needs nothing beyond the engine.

Games end by the rules, by a mate score (the side with the mate wins), by adjudication as the runner
does it (both sides' scores beyond ``--resign-score`` for ``--resign-plies`` plies; within
``--draw-score`` for ``--draw-plies`` plies after ``--draw-after`` plies), by a Syzygy probe with
``--syzygy DIR``, or as a draw after ``--max-plies``.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import random
import signal
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass
from typing import Any

from tools.nnue_data import RECORD_SIZE, RESULT_DRAW, RESULT_LOSS, RESULT_WIN, load_array, pack, read_records

MATE_BOUND = 32000 - 128          # the core's MATE_IN_MAX_PLY: beyond it a score is a mate
MANIFEST = "datagen.json"


@dataclass(frozen=True)
class Settings:
    """How each game is played; every worker receives a copy."""

    soft_nodes: int = 5000
    hard_nodes: int = 50000
    hash_mb: int = 4
    random_plies: int = 8
    book: str | None = None
    book_lines: tuple[str, ...] = ()
    resign_score: int = 1000
    resign_plies: int = 4
    draw_score: int = 10
    draw_plies: int = 12
    draw_after: int = 80
    max_plies: int = 400
    syzygy: str | None = None
    eval_file: str | None = None      # a net file to play with (the second generation); None: weighted


@dataclass
class GameRecords:
    """One finished game: its records, ready to append, and how it ended."""

    index: int
    data: bytes
    positions: int
    plies: int
    result: str
    worker: str


# One searcher per worker process, made on its first game: a new one per game would allocate the
# hash table each time.
_SEARCHER: Any = None
_SEARCHER_KEY: tuple[int, str | None] | None = None      # the settings it was made for
_TABLEBASE: Any = None


def _searcher(settings: Settings) -> Any:
    global _SEARCHER, _SEARCHER_KEY
    from search.alphabeta_searcher import AlphaBetaSearcher
    key = (settings.hash_mb, settings.eval_file)
    if _SEARCHER is None or _SEARCHER_KEY != key:
        _SEARCHER = AlphaBetaSearcher(hash_mb=settings.hash_mb, threads=1)
        _SEARCHER_KEY = key
        if settings.eval_file:
            from eval.networks import load_network
            _SEARCHER.set_network(load_network(settings.eval_file)[0])
    return _SEARCHER


def _tablebase(settings: Settings) -> Any:
    global _TABLEBASE
    if settings.syzygy and _TABLEBASE is None:
        import chess.syzygy
        _TABLEBASE = chess.syzygy.open_tablebase(settings.syzygy)
    return _TABLEBASE


def _tablebase_result(fen: str, settings: Settings) -> int | None:
    """RESULT_* from the side to move's view when the tables know the position; None otherwise."""
    table = _tablebase(settings)
    if table is None:
        return None
    import chess
    import chess.syzygy
    board = chess.Board(fen)
    if chess.popcount(board.occupied) > 5 or board.castling_rights:
        return None
    try:
        wdl = table.probe_wdl(board)
    except (chess.syzygy.MissingTableError, OSError, ValueError):
        return None
    return RESULT_WIN if wdl > 1 else RESULT_LOSS if wdl < -1 else RESULT_DRAW


def _opening(rng: random.Random, settings: Settings) -> Any:
    """A book line (when given) and then random legal plies; None if the plies ended the game."""
    from search.board.position import Position
    if settings.book_lines:
        line = rng.choice(settings.book_lines)
        fields = line.split()
        position = Position(" ".join(fields[:4]) + " 0 1")
    else:
        position = Position()
    # An odd count now and then, so that both colours move first out of the opening.
    for _ in range(settings.random_plies + rng.randint(0, 1)):
        moves = position.legal_moves()
        if not moves:
            return None
        position.push(rng.choice(moves))
    return position if position.outcome() is None else None


def _is_capture(position: Any, uci: str) -> bool:
    to_square = (ord(uci[2]) - ord("a")) + 8 * (int(uci[3]) - 1)
    if position.piece_at(to_square) is not None:
        return True
    # A pawn that changes file onto an empty square captures en passant.
    from_square = (ord(uci[0]) - ord("a")) + 8 * (int(uci[1]) - 1)
    return position.piece_at(from_square) in ("P", "p") and uci[0] != uci[2]


def play_game(index: int, seed: int, settings: Settings) -> GameRecords:
    """Play game number `index` of the run seeded `seed`; the records of its quiet positions."""
    from search.limits import SearchLimits
    rng = random.Random(seed * 1_000_003 + index)
    searcher = _searcher(settings)
    searcher.clear()
    position = None
    while position is None:
        position = _opening(rng, settings)
    limits = SearchLimits(nodes=settings.hard_nodes, soft_nodes=settings.soft_nodes)
    kept: list[tuple[str, int, bool]] = []     # (FEN, score for the side to move, white to move)
    winning = losing = quiet = 0               # consecutive plies of adjudication evidence
    plies = 0
    white_result: int | None = None            # RESULT_* from White's view
    while white_result is None:
        outcome = position.outcome()
        if outcome is not None:
            white_result = {"1-0": RESULT_WIN, "0-1": RESULT_LOSS}.get(outcome, RESULT_DRAW)
            break
        fen = position.fen()
        white = position.turn
        table_result = _tablebase_result(fen, settings) if settings.syzygy else None
        if table_result is not None:
            white_result = table_result if white else 2 - table_result
            break
        result = searcher.search(position, limits)
        score = int(result.value)
        if abs(score) >= MATE_BOUND:
            side_result = RESULT_WIN if score > 0 else RESULT_LOSS
            white_result = side_result if white else 2 - side_result
            break
        move = result.best_move
        if not position.is_check() and len(move) == 4 and not _is_capture(position, move):
            kept.append((fen, score, white))
        # The runner's adjudication: scores are from the side to move, so a decided game shows
        # alternating signs; count plies where the score says White is winning (or losing).
        white_score = score if white else -score
        winning = winning + 1 if white_score >= settings.resign_score else 0
        losing = losing + 1 if white_score <= -settings.resign_score else 0
        quiet = quiet + 1 if abs(score) <= settings.draw_score and plies >= settings.draw_after else 0
        if winning >= settings.resign_plies:
            white_result = RESULT_WIN
        elif losing >= settings.resign_plies:
            white_result = RESULT_LOSS
        elif quiet >= settings.draw_plies or plies >= settings.max_plies:
            white_result = RESULT_DRAW
        position.push(move)
        plies += 1
    data = b"".join(pack(fen, score, white_result if white else 2 - white_result)
                    for fen, score, white in kept)
    name = {RESULT_WIN: "1-0", RESULT_LOSS: "0-1", RESULT_DRAW: "1/2-1/2"}[white_result]
    return GameRecords(index, data, len(kept), plies, name, _worker_name())


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
            if name.endswith(".kpos"):
                path = os.path.join(directory, name)
                size = os.path.getsize(path)
                if size % RECORD_SIZE:
                    # A coordinator killed inside a write: drop the partial record.
                    with open(path, "r+b") as handle:
                        handle.truncate(size - size % RECORD_SIZE)
                    cut += 1
                self.positions += size // RECORD_SIZE
        if cut:
            print(f"datagen: cut a partial record off {cut} shard(s)", file=sys.stderr)
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
            handle = open(os.path.join(self.directory, game.worker + ".kpos"), "ab")
            self.handles[game.worker] = handle
        handle.write(game.data)
        handle.flush()
        self.positions += game.positions
        self.games += 1
        if time.monotonic() - self.last_sync > 30:
            self.sync()

    def sync(self) -> None:
        """Flush every shard to disk, then record the games played (the manifest may lag the data)."""
        for handle in self.handles.values():
            os.fsync(handle.fileno())
        settings = asdict(self.settings)
        settings.pop("book_lines")
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
    """One status line every few seconds: positions, rate, games and the time left."""

    def __init__(self, start_positions: int, target: int, every: float = 10.0) -> None:
        self.start_positions = start_positions
        self.target = target
        self.every = every
        self.started = self.last = time.monotonic()

    def update(self, positions: int, games: int, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self.last < self.every:
            return
        self.last = now
        rate = (positions - self.start_positions) / max(1e-9, now - self.started)
        left = (self.target - positions) / rate if rate > 0 else float("inf")
        eta = "-" if left == float("inf") else f"{int(left // 3600)}h{int(left % 3600 // 60):02d}m"
        print(f"datagen: {positions:,} / {self.target:,} positions, {rate:.0f} pos/s, {games:,} games, "
              f"ETA {eta}", file=sys.stderr, flush=True)


def _local_games(workers: int, first: int, seed: int, settings: Settings) -> Iterator[GameRecords]:
    """Games from `workers` local processes, numbered from `first`, for as long as the caller reads.
    A worker process that dies takes its game with it; the pool is rebuilt and the game replayed."""
    next_index = first
    replay: list[int] = []
    while True:
        pool = concurrent.futures.ProcessPoolExecutor(max_workers=workers)
        pending: dict[concurrent.futures.Future[GameRecords], int] = {}
        try:
            while True:
                while len(pending) < 2 * workers:
                    if replay:
                        index = replay.pop()
                    else:
                        index, next_index = next_index, next_index + 1
                    pending[pool.submit(play_game, index, seed, settings)] = index
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


def merge(inputs: list[str], output: str, dedup: bool, shuffle: bool, seed: int,
          mirror: bool = False) -> tuple[int, int, int]:
    """Concatenate shards into `output`; (records read, mirror images added, records written).  With `dedup`, the first
    record of each position is kept (the board, side to move, castling and en passant: the same
    position with other labels or clocks is a duplicate).  numpy does the work, so tens of millions
    of records take seconds, not a Python set.  With `mirror`, the left-right mirror images of the
    positions without castling rights are added (before the de-duplication)."""
    import numpy as np
    parts = []
    for path in inputs:
        parts.append(np.asarray(load_array(path)).view(np.uint8).reshape(-1, RECORD_SIZE))
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
    """Count, results and score spread of the records in `paths`."""
    count = wins = draws = losses = 0
    total = total_abs = 0
    for path in paths:
        for record in read_records(path):
            count += 1
            wins += record.result == RESULT_WIN
            draws += record.result == RESULT_DRAW
            losses += record.result == RESULT_LOSS
            total += record.score
            total_abs += abs(record.score)
    return {"positions": count, "wins": wins, "draws": draws, "losses": losses,
            "mean_score": total / max(1, count), "mean_abs_score": total_abs / max(1, count)}


def _book_lines(path: str) -> tuple[str, ...]:
    with open(path) as handle:
        return tuple(line.strip() for line in handle if line.strip() and not line.startswith("#"))


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.datagen", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    gen = commands.add_parser("generate", help="play games and write their positions")
    gen.add_argument("--out", required=True, help="directory of the shards (created; resumed when it exists)")
    gen.add_argument("--positions", type=int, required=True, help="stop once the directory holds this many")
    gen.add_argument("--soft-nodes", type=int, default=Settings.soft_nodes,
                     help="no new iteration after this many nodes (default %(default)s)")
    gen.add_argument("--hard-nodes", type=int, default=Settings.hard_nodes, help="node limit (default %(default)s)")
    gen.add_argument("--hash", type=int, default=Settings.hash_mb, help="MB per worker (default %(default)s)")
    gen.add_argument("--random-plies", type=int, default=Settings.random_plies,
                     help="random legal plies after the book line (default %(default)s, +0 or 1)")
    gen.add_argument("--book", help="EPD file: each game starts from a random line of it")
    gen.add_argument("--syzygy", help="Syzygy directory: positions the tables know end the game")
    gen.add_argument("--max-plies", type=int, default=Settings.max_plies)
    gen.add_argument("--seed", type=int, default=1)
    gen.add_argument("--eval-file", metavar="NET",
                     help="play with this net file (the next generation's data); default: the weighted evaluation")
    gen.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="local processes (default: cores)")
    gen.add_argument("--dask", metavar="ADDRESS", help="local:N or a scheduler address instead of local processes")
    gen.add_argument("--progress-every", type=float, default=10.0, help="seconds between status lines")
    join = commands.add_parser("merge", help="concatenate shards (optionally de-duplicated and shuffled)")
    join.add_argument("inputs", nargs="+")
    join.add_argument("-o", "--output", required=True)
    join.add_argument("--dedup", action="store_true", help="keep the first record of each position")
    join.add_argument("--shuffle", action="store_true")
    join.add_argument("--mirror", action="store_true",
                      help="add the left-right mirror image of each position without castling rights")
    join.add_argument("--seed", type=int, default=1)
    summary = commands.add_parser("stats", help="count and labels of record files")
    summary.add_argument("inputs", nargs="+")
    args = parser.parse_args(argv)

    if args.command == "merge":
        read, added, written = merge(args.inputs, args.output, args.dedup, args.shuffle, args.seed, args.mirror)
        mirrors = f" and {added:,} mirror images" if args.mirror else ""
        print(f"merged {read:,} records{mirrors} into {written:,} ({read + added - written:,} duplicates dropped)")
        return 0
    if args.command == "stats":
        print(json.dumps(stats(args.inputs), indent=1))
        return 0
    if args.soft_nodes < 1 or args.hard_nodes < args.soft_nodes:
        parser.error("--soft-nodes must be positive and --hard-nodes at least --soft-nodes")
    if args.workers < 1:
        parser.error("--workers must be at least 1")
    try:
        book_lines = _book_lines(args.book) if args.book else ()
    except OSError as err:
        parser.error(f"--book: {err}")
    if args.book and not book_lines:
        parser.error(f"--book {args.book}: no lines")
    eval_file = os.path.abspath(args.eval_file) if args.eval_file else None
    if eval_file:
        from eval.networks import load_network
        try:
            load_network(eval_file)      # refused here, with its reason, rather than in every worker
        except (OSError, ValueError) as err:
            parser.error(f"--eval-file {args.eval_file}: {err}")
    settings = Settings(soft_nodes=args.soft_nodes, hard_nodes=args.hard_nodes, hash_mb=args.hash,
                        random_plies=args.random_plies, book=args.book, book_lines=book_lines,
                        max_plies=args.max_plies, syzygy=args.syzygy, eval_file=eval_file)
    # A background run (nohup, a job scheduler) ignores Ctrl-C and is stopped by SIGTERM: both end
    # the run the same way, with the shards flushed and the manifest written.
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        generate(args.out, args.positions, settings, args.seed, workers=args.workers, dask=args.dask,
                 progress_every=args.progress_every)
    except KeyboardInterrupt:
        print("datagen: interrupted; run the same command again to go on", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
