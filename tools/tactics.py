"""Tactical suites: how many EPD `bm` positions the searcher solves in a fixed time.

``python -m tools.tactics ../shared/data/bk.epd --movetime 1000``

A position counts as solved when the move played after `movetime` milliseconds is one
of its `bm` moves (and none of its `am` moves).  A benchmark, not a test: the count
depends on the machine's speed.
"""

from __future__ import annotations

import argparse
import sys
import time

import chess

from search.alphabeta_searcher import AlphaBetaSearcher
from search.board.position import Position
from search.limits import SearchLimits


def _moves(operand: object) -> set[str]:
    """The UCI moves of an EPD `bm`/`am` operand (python-chess gives a list of moves)."""
    if isinstance(operand, list):
        return {m.uci() for m in operand if isinstance(m, chess.Move)}
    return set()

def run_suite(path: str, movetime_ms: int, hash_mb: int, limit: int | None, verbose: bool) -> int:
    """Search every position of an EPD file; prints a line per miss and a summary. Returns solved."""
    searcher = AlphaBetaSearcher(hash_mb=hash_mb)
    solved = total = 0
    start = time.perf_counter()
    with open(path) as handle:
        lines = [line for line in handle if line.strip()]
    for line in lines[:limit]:
        board, ops = chess.Board.from_epd(line)
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
            name = ops.get("id", f"#{total}")
            wanted = " ".join(board.san(chess.Move.from_uci(m)) for m in best) if best else "-"
            print(f"{'ok  ' if ok else 'miss'} {name:12s} played {board.san(chess.Move.from_uci(result.best_move)):8s} "
                  f"wanted {wanted:10s} depth {result.depth:2d} score {result.score[0]} {result.score[1]}")
    seconds = time.perf_counter() - start
    print(f"{path}: solved {solved}/{total} at {movetime_ms} ms per position ({seconds:.0f} s)")
    return solved


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.tactics", description=__doc__.splitlines()[0])
    parser.add_argument("epd", nargs="+", help="EPD files with bm/am operations")
    parser.add_argument("--movetime", type=int, default=1000, help="milliseconds per position")
    parser.add_argument("--hash", type=int, default=64, help="hash table size in MB")
    parser.add_argument("--limit", type=int, default=None, help="only the first N positions of each file")
    parser.add_argument("--verbose", action="store_true", help="print solved positions too")
    args = parser.parse_args(argv)
    for path in args.epd:
        run_suite(path, args.movetime, args.hash, args.limit, args.verbose)
    return 0


if __name__ == "__main__":
    sys.exit(main())
