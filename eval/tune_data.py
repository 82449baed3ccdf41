"""Training positions for the Texel tuner: from Kestrel's self-play or from any PGN.

``python -m eval.tune_data selfplay --games 8000 --nodes 4000 --out data.epd`` plays fast
fixed-node games of Kestrel against itself through the project's runner (balanced openings
from ``../shared/data/openings``, colours swapped), then extracts them;
``python -m eval.tune_data pgn games.pgn [more.pgn ...] --out data.epd`` extracts positions
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

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

import chess
import chess.pgn

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
        "-report-every", "200", "-pgnout", str(pgn),
    ]
    print(" ".join(command), file=sys.stderr)
    return subprocess.call(command, cwd=Path(__file__).resolve().parents[1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m eval.tune_data", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    play = commands.add_parser("selfplay", help="fixed-node self-play through the runner, then extract")
    play.add_argument("--games", type=int, default=8000)
    play.add_argument("--nodes", type=int, default=4000, help="nodes per move (default 4000)")
    play.add_argument("--book", type=Path, default=DEFAULT_BOOK, help="EPD openings (default 2moves_v1.epd)")
    play.add_argument("--concurrency", type=int, default=os.cpu_count() or 1)
    play.add_argument("--pgn", type=Path, help="keep the games here (default: a temporary file)")
    play.add_argument("--out", type=Path, required=True)
    play.add_argument("--skip-plies", type=int, default=8)
    pgn = commands.add_parser("pgn", help="extract quiet positions from PGN files")
    pgn.add_argument("files", type=Path, nargs="+")
    pgn.add_argument("--out", type=Path, required=True)
    pgn.add_argument("--skip-plies", type=int, default=8)
    args = parser.parse_args(argv)

    if args.command == "pgn":
        missing = [str(f) for f in args.files if not f.is_file()]
        if missing:
            print(f"no such PGN file: {', '.join(missing)}", file=sys.stderr)
            return 2
        files = list(args.files)
    else:
        if not args.book.is_file() or args.games < 1 or args.nodes < 1:
            print(f"selfplay needs an opening book (not found: {args.book}) and positive --games/--nodes",
                  file=sys.stderr)
            return 2
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
