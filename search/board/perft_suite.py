"""Perft benchmark and suite check: ``python -m search.board.perft_suite``.

Prints nodes, seconds and millions of leaves per second for the standard speed
positions, then checks every count of an EPD perft suite (``;D1 n ;D2 n ...``).
The last ply is counted from the move list without being made (bulk counting).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Iterator

from search.board import Position

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
SPEED_CASES = [
    ("startpos", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 6, 119060324),
    ("kiwipete", KIWIPETE, 5, 193690690),
]
DEFAULT_SUITE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "data", "perftsuite.epd")


def read_suite(path: str) -> Iterator[tuple[str, list[tuple[int, int]]]]:
    """Yield (fen, [(depth, expected leaves), ...]) for each line of a perft EPD file."""
    with open(path) as handle:
        for line in handle:
            if not line.strip():
                continue
            fields = line.split(";")
            counts = []
            for field in fields[1:]:
                depth, count = field.split()
                counts.append((int(depth.lstrip("D")), int(count)))
            yield fields[0].strip(), counts


def run_speed() -> bool:
    ok = True
    for name, fen, depth, expected in SPEED_CASES:
        position = Position(fen)
        start = time.perf_counter()
        nodes = position.perft(depth)
        seconds = time.perf_counter() - start
        ok &= nodes == expected
        verdict = "OK" if nodes == expected else f"WRONG, expected {expected:,d}"
        print(f"{name:9s} perft {depth}: {nodes:>11,d} leaves in {seconds:6.3f} s = "
              f"{nodes / seconds / 1e6:7.1f} M leaves/s  {verdict}")
    return ok


def run_suite(path: str, max_leaves: int) -> bool:
    checked = failed = 0
    total_nodes = 0
    start = time.perf_counter()
    for fen, counts in read_suite(path):
        position = Position(fen)
        for depth, expected in counts:
            if expected > max_leaves:
                continue
            nodes = position.perft(depth)
            total_nodes += nodes
            checked += 1
            if nodes != expected:
                failed += 1
                print(f"MISMATCH {fen} depth {depth}: {nodes} != {expected}")
    seconds = time.perf_counter() - start
    print(f"suite: {checked} counts checked, {failed} wrong, {total_nodes:,d} leaves in {seconds:.1f} s")
    return failed == 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", default=DEFAULT_SUITE, help="perft EPD file")
    parser.add_argument("--max-leaves", type=int, default=10**12, help="skip counts larger than this")
    parser.add_argument("--no-speed", action="store_true", help="skip the speed positions")
    parser.add_argument("--no-suite", action="store_true", help="skip the suite")
    args = parser.parse_args(argv)
    ok = True
    if not args.no_speed:
        ok &= run_speed()
    if not args.no_suite:
        if not os.path.exists(args.suite):
            print(f"perft suite not found: {args.suite}", file=sys.stderr)
            return 2
        ok &= run_suite(args.suite, args.max_leaves)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
