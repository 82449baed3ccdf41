"""Tactical suites: how many EPD `bm` positions the searcher solves in a fixed time.

``python -m tools.tactics ../shared/data/bk.epd --movetime 1000``

A position counts as solved when the move played after `movetime` milliseconds is one
of its `bm` moves (and none of its `am` moves).  A benchmark, not a test: the count
depends on the machine's speed.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping
from pathlib import Path

import chess

from search.alphabeta_searcher import AlphaBetaSearcher
from search.board.position import Position
from search.limits import MAX_HASH_MB, SearchLimits
from tools.arguments import ToolParser, fail, int_range, parse, positive_int, readable_file


def _moves(operand: object) -> set[str]:
    """The UCI moves of an EPD `bm`/`am` operand (python-chess gives a list of moves)."""
    if isinstance(operand, list):
        return {m.uci() for m in operand if isinstance(m, chess.Move)}
    return set()

Suite = list[tuple[chess.Board, Mapping[str, object]]]


def read_suite(path: Path, limit: int | None = None) -> Suite:
    """The first `limit` positions of an EPD file (all by default); ValueError naming the first
    line that is not an EPD position the engine can search."""
    suite: Suite = []
    with open(path, encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, 1):
            if limit is not None and len(suite) >= limit:
                break
            if not line.strip():
                continue
            try:
                board, ops = chess.Board.from_epd(line)
                Position(board.fen())
            except ValueError as error:
                raise ValueError(f"{path}:{number}: not an EPD position ({error})") from None
            suite.append((board, ops))
    return suite


def run_suite(name: str, suite: Suite, movetime_ms: int, hash_mb: int, verbose: bool) -> int:
    """Search every position of a suite; prints a line per miss and a summary. Returns solved."""
    searcher = AlphaBetaSearcher(hash_mb=hash_mb)
    solved = total = 0
    start = time.perf_counter()
    for board, ops in suite:
        best = _moves(ops.get("bm"))
        avoid = _moves(ops.get("am"))
        if not best and not avoid:
            continue
        total += 1
        searcher.clear()
        result = searcher.search(Position(board.fen()), SearchLimits(movetime=movetime_ms))
        ok = (not best or result.best_move in best) and result.best_move not in avoid
        solved += ok
        if verbose or not ok:
            label = str(ops.get("id", f"#{total}"))
            wanted = " ".join(board.san(chess.Move.from_uci(m)) for m in best) if best else "-"
            played = board.san(chess.Move.from_uci(result.best_move))
            print(f"{'ok  ' if ok else 'miss'} {label:12s} played {played:8s} "
                  f"wanted {wanted:10s} depth {result.depth:2d} score {result.score[0]} {result.score[1]}")
    seconds = time.perf_counter() - start
    print(f"{name}: solved {solved}/{total} at {movetime_ms} ms per position ({seconds:.0f} s)")
    return solved


def main(argv: list[str] | None = None) -> int:
    parser = ToolParser(prog="python -m tools.tactics", description=__doc__.splitlines()[0])
    parser.add_argument("epd", nargs="+", type=readable_file, help="EPD files with bm/am operations")
    parser.add_argument("--movetime", type=positive_int, default=1000, help="milliseconds per position")
    parser.add_argument("--hash", type=int_range(1, MAX_HASH_MB), default=64, help="hash table size in MB")
    parser.add_argument("--limit", type=positive_int, default=None, help="only the first N positions of each file")
    parser.add_argument("--verbose", action="store_true", help="print solved positions too")
    args = parse(parser, argv)
    if args is None:
        return 2
    try:
        # Every file read before the first search: a bad line costs a second, not a suite's time.
        suites = [(str(path), read_suite(path, args.limit)) for path in args.epd]
    except (OSError, ValueError) as error:
        return fail(parser.prog, f"{error}; give EPD files with bm/am operations")
    for name, suite in suites:
        run_suite(name, suite, args.movetime, args.hash, args.verbose)
    return 0


if __name__ == "__main__":
    sys.exit(main())
