"""Training positions for the Texel tuner: from Kestrel's self-play or from any PGN.

``python -m tools.tune_data selfplay --games 25000 --nodes 2500 --out data.epd`` plays fast
fixed-node games of Kestrel against itself from balanced openings (``../shared/data/openings``),
in worker processes that drive the searcher directly (about 10x the positions per minute of
UCI games, whose per-move overhead dominates at a few thousand nodes); ``--runner`` plays them
through the project's tournament runner instead (PGN, adjudication, UCI) and extracts them;
``python -m tools.tune_data pgn games.pgn [more.pgn ...] --out data.epd`` extracts positions
from PGN files a user has.

The format is EPD, one position a line, with the game's result from White's view in the
opcode ``c9`` (as the published Texel sets write it)::

    rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - c9 "1-0";

Which positions are kept: quiet ones, as the tuner needs positions whose static evaluation
is what the game was about.  A position is skipped when its side to move is in check, when
the move played from it captures or promotes (the position was in the middle of an
exchange), in the first ``--skip-plies`` plies of a game (the book), and when it was seen
before (the same placement, side, castling and en passant).  Games without a result are
skipped whole.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import chess
import chess.pgn

from tools.arguments import (
    ToolParser,
    fail,
    int_range,
    non_negative_int,
    parse,
    positive_int,
    readable_file,
    writable_output,
)

if TYPE_CHECKING:
    from search.alphabeta_searcher import AlphaBetaSearcher

RESULTS = {"1-0": "1-0", "0-1": "0-1", "1/2-1/2": "1/2-1/2"}
RESULT_SCORES = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}
DEFAULT_BOOK = Path(__file__).resolve().parents[2] / "shared" / "data" / "openings" / "2moves_v1.epd"


def quiet_positions(game: chess.pgn.Game, skip_plies: int = 8) -> Iterator[str]:
    """The EPD (four fields) of each quiet position of `game` (see the module's docstring)."""
    board = game.board()
    for ply, move in enumerate(game.mainline_moves()):
        if ply >= skip_plies and not board.is_check() and not board.is_capture(move) and move.promotion is None:
            yield board.epd()
        board.push(move)


def extract(pgn_files: Iterable[Path], out: Path, skip_plies: int = 8, report_every: int = 1000) -> tuple[int, int]:
    """Write the quiet positions of every finished game to `out`; (games used, positions written)."""
    seen: set[str] = set()
    games = written = 0
    start = time.monotonic()
    with out.open("w") as sink:
        for path in pgn_files:
            with path.open(errors="replace") as source:
                while True:
                    game = chess.pgn.read_game(source)
                    if game is None:
                        break
                    result = RESULTS.get(game.headers.get("Result", "*"))
                    if result is None or game.errors:
                        continue
                    games += 1
                    for epd in quiet_positions(game, skip_plies):
                        if epd in seen:
                            continue
                        seen.add(epd)
                        sink.write(f'{epd} c9 "{result}";\n')
                        written += 1
                    if games % report_every == 0:
                        print(f"{games} games, {written} positions, {time.monotonic() - start:.0f} s",
                              file=sys.stderr)
    return games, written


def read_positions(path: Path) -> tuple[list[str], list[float]]:
    """The FENs and White's results (1, 0.5, 0) of an EPD file written by `extract`.

    Lines with another result opcode are read too: ``c9 "1-0"``, ``c9 "1.0"`` or a trailing
    ``[1.0]``/``[0.5]``/``[0.0]`` (the other common Texel formats); anything else is an error
    naming the line."""
    fens: list[str] = []
    results: list[float] = []
    with path.open() as source:
        for number, line in enumerate(source, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            fields = line.split(maxsplit=4)
            if len(fields) < 5:
                raise ValueError(f"{path}:{number}: not an EPD line with a result: {line[:80]!r}")
            label = fields[4].replace("c9", "").strip().strip(";").strip().strip('"[]')
            score = RESULT_SCORES.get(label)
            if score is None:
                try:
                    score = float(label)
                except ValueError:
                    raise ValueError(f"{path}:{number}: unknown result {label!r}") from None
                if not 0.0 <= score <= 1.0:
                    raise ValueError(f"{path}:{number}: result {score} outside 0..1")
            fens.append(" ".join(fields[:4]) + " 0 1")
            results.append(score)
    return fens, results


def selfplay(games: int, nodes: int, book: Path, pgn: Path, concurrency: int) -> int:
    """Kestrel against itself through the project's runner; the runner's exit status."""
    command = [
        sys.executable, "-m", "tournaments",
        "-engine", f"cmd={sys.executable} -m uci_engine", "name=Kestrel-A",
        "-engine", f"cmd={sys.executable} -m uci_engine", "name=Kestrel-B",
        "-each", f"nodes={nodes}", "option.Hash=16",
        "-games", "2", "-rounds", str((games + 1) // 2), "-concurrency", str(concurrency),
        "-openings", f"file={book}", "order=random", "-srand", str(int(time.time())),
        "-draw", "movenumber=40", "movecount=8", "score=5",
        "-resign", "movecount=4", "score=1000", "twosided=true",
        "-report-every", "200", "-pgnout", str(pgn), "-recover",
    ]
    print(" ".join(command), file=sys.stderr)
    return subprocess.call(command, cwd=Path(__file__).resolve().parents[1])


# Adjudication of direct self-play, as the runner's -resign/-draw options would do it.
RESIGN_SCORE, RESIGN_PLIES = 1000, 8        # both sides agree for 4 moves each
DRAW_FROM_PLY, DRAW_SCORE, DRAW_PLIES = 80, 5, 16
MAX_PLIES = 400


def play_direct(opening: str, nodes: int, skip_plies: int) -> tuple[list[str], str]:
    """One fixed-node game of Kestrel against itself from `opening`; its quiet EPDs and result."""
    from search.board.position import Position
    from search.limits import SearchLimits

    searcher = _searcher()
    searcher.clear()
    position = Position(opening)
    limits = SearchLimits(nodes=nodes)
    quiet: list[str] = []
    decisive = drawish = 0
    for ply in range(MAX_PLIES):
        outcome = position.outcome()
        if outcome is not None:
            return quiet, outcome
        result = searcher.search(position, limits)
        move, value = result.best_move, result.value
        if ply >= skip_plies and not position.is_check() and move not in position.noisy_moves():
            quiet.append(" ".join(position.fen().split()[:4]))
        # value is from the mover's view: a win for White when positive on White's move.
        white_value = value if position.turn else -value
        decisive = decisive + 1 if abs(value) >= RESIGN_SCORE else 0
        drawish = drawish + 1 if ply >= DRAW_FROM_PLY and abs(value) <= DRAW_SCORE else 0
        position.push(move)
        if decisive >= RESIGN_PLIES:
            return quiet, "1-0" if white_value > 0 else "0-1"
        if drawish >= DRAW_PLIES:
            return quiet, "1/2-1/2"
    return quiet, "1/2-1/2"


_SEARCHER: list[AlphaBetaSearcher] = []


def _searcher() -> AlphaBetaSearcher:
    """One searcher per worker process, reused from game to game."""
    from search.alphabeta_searcher import AlphaBetaSearcher

    if not _SEARCHER:
        _SEARCHER.append(AlphaBetaSearcher(hash_mb=16))
    return _SEARCHER[0]


def _play_batch(job: tuple[list[str], int, int]) -> list[tuple[list[str], str]]:
    openings, nodes, skip_plies = job
    return [play_direct(opening, nodes, skip_plies) for opening in openings]


def selfplay_direct(games: int, nodes: int, book: Path, out: Path, workers: int, skip_plies: int,
                    seed: int) -> tuple[int, int]:
    """Direct self-play in `workers` processes; writes quiet positions as they come."""
    openings = [" ".join(line.split()[:4]) + " 0 1" for line in book.read_text().splitlines() if line.strip()]
    rng = random.Random(seed)
    # Each opening twice, so both colours play it (the runner's -games 2).
    chosen = [opening for opening in rng.choices(openings, k=(games + 1) // 2) for _ in range(2)][:games]
    batches = [(chosen[i:i + 20], nodes, skip_plies) for i in range(0, len(chosen), 20)]
    seen: set[str] = set()
    played = written = 0
    start = time.monotonic()
    with out.open("w") as sink, multiprocessing.get_context("spawn").Pool(workers) as pool:
        for batch in pool.imap_unordered(_play_batch, batches):
            for quiet, result in batch:
                played += 1
                for epd in quiet:
                    if epd not in seen:
                        seen.add(epd)
                        sink.write(f'{epd} c9 "{result}";\n')
                        written += 1
            elapsed = time.monotonic() - start
            if played % 1000 < 20:
                print(f"{played}/{games} games, {written} positions, {elapsed:.0f} s "
                      f"({written * 60 / max(elapsed, 1e-9):.0f} positions/min)", file=sys.stderr)
    return played, written


def check_book(path: Path) -> str | None:
    """The problem with an opening book, or None: the first line that the engine's board refuses, or
    no position at all.  The games are played in worker processes, where a bad opening would end the
    run after hours."""
    from search.board.position import Position

    positions = 0
    try:
        with path.open(errors="replace") as source:
            for number, line in enumerate(source, 1):
                fields = line.split()
                if not fields:
                    continue
                try:
                    Position(" ".join(fields[:4]) + " 0 1")
                except ValueError as error:
                    return f"{path}:{number}: not a position ({error}): {line.strip()[:80]!r}"
                positions += 1
    except OSError as error:
        return f"{path}: {error.strerror or error}"
    return None if positions else f"{path}: no positions"


def main(argv: list[str] | None = None) -> int:
    parser = ToolParser(prog="python -m tools.tune_data", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    play = commands.add_parser("selfplay", help="fixed-node self-play, then extract")
    play.add_argument("--games", type=positive_int, default=25000)
    play.add_argument("--nodes", type=positive_int, default=2500, help="nodes per move (default 2500)")
    play.add_argument("--runner", action="store_true", help="play through the tournament runner (UCI, PGN)")
    play.add_argument("--seed", type=int, default=1)
    play.add_argument("--book", type=readable_file, default=str(DEFAULT_BOOK),
                      help="EPD openings (default 2moves_v1.epd)")
    play.add_argument("--concurrency", type=int_range(1, 256), default=os.cpu_count() or 1)
    play.add_argument("--pgn", type=writable_output,
                      help="with --runner: keep the games here (default: a temporary file)")
    play.add_argument("--out", type=writable_output, required=True)
    play.add_argument("--skip-plies", type=non_negative_int, default=8)
    pgn = commands.add_parser("pgn", help="extract quiet positions from PGN files")
    pgn.add_argument("files", type=readable_file, nargs="+")
    pgn.add_argument("--out", type=writable_output, required=True)
    pgn.add_argument("--skip-plies", type=non_negative_int, default=8)
    args = parse(parser, argv)
    if args is None:
        return 2

    if args.command == "pgn":
        files = list(args.files)
    else:
        problem = check_book(args.book)
        if problem is not None:
            return fail(parser.prog, f"{problem}; give an EPD opening book with --book")
        if not args.runner:
            start = time.monotonic()
            games, written = selfplay_direct(args.games, args.nodes, args.book, args.out, args.concurrency,
                                             args.skip_plies, args.seed)
            print(f"{games} games -> {written} positions in {args.out} ({time.monotonic() - start:.0f} s)")
            return 0
        with tempfile.TemporaryDirectory() as scratch:
            games_pgn = args.pgn or Path(scratch) / "selfplay.pgn"
            start = time.monotonic()
            status = selfplay(args.games, args.nodes, args.book, games_pgn, args.concurrency)
            print(f"self-play: {time.monotonic() - start:.0f} s, runner status {status}", file=sys.stderr)
            if status not in (0, 1):
                return status
            games, written = extract([games_pgn], args.out, args.skip_plies)
            print(f"{games} games -> {written} positions in {args.out}")
            return 0
    games, written = extract(files, args.out, args.skip_plies)
    print(f"{games} games -> {written} positions in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
