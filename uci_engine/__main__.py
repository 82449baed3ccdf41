"""Command line: `kestrel` speaks UCI on stdin/stdout; `kestrel bench [depth]` and
`kestrel perft N [FEN]` print figures and exit; `kestrel web` serves the browser pages."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

if not __package__:
    # Run as `python path/to/uci_engine` (how lichess-bot's `interpreter` setting starts an
    # engine): put the checkout, not this folder, on the path, so the packages import and
    # the modules in here cannot shadow others by name.
    _here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]
    sys.path.insert(0, os.path.dirname(_here))

from uci_engine import ENGINE_NAME, ENGINE_VERSION  # noqa: E402

USAGE = """usage: kestrel                 speak UCI on stdin/stdout (give this command to a GUI)
       kestrel bench [--weighted] [DEPTH [THREADS]]
                               search the benchmark positions with the built-in net (or the
                               weighted evaluation); print nodes and nodes/second
       kestrel perft N [FEN]   count the leaves of the move tree, per root move
       kestrel web [--port PORT] [--host HOST] [--no-browser]
                               play and analyse in the browser (needs the web extra)
       kestrel --version"""


def _bench(args: list[str]) -> int:
    from search.bench import main as bench_main

    numbers = [arg for arg in args if arg != "--weighted"]
    if len(numbers) > 2 or not all(arg.isdigit() for arg in numbers) or len(args) - len(numbers) > 1:
        print(USAGE, file=sys.stderr)
        return 2
    return bench_main(args)


def _perft(args: list[str]) -> int:
    from search.board import Position

    if not args or not args[0].isdigit() or int(args[0]) < 1:
        print(USAGE, file=sys.stderr)
        return 2
    try:
        position = Position(" ".join(args[1:])) if len(args) > 1 else Position()
    except ValueError as exc:
        print(f"kestrel perft: bad FEN: {exc}", file=sys.stderr)
        return 2
    divide = position.divide(int(args[0]))
    for move, count in divide.items():
        print(f"{move}: {count}")
    print(f"\nNodes searched: {sum(divide.values())}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `kestrel` console script and of `python -m uci_engine`."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "bench":
        return _bench(args[1:])
    if args and args[0] == "perft":
        return _perft(args[1:])
    if args and args[0] == "web":
        from web.cli import main as web_main

        return web_main(args[1:])
    if args and args[0] in ("--version", "-V"):
        print(f"{ENGINE_NAME} {ENGINE_VERSION}")
        return 0
    if args:
        print(USAGE, file=sys.stderr)
        return 0 if args[0] in ("-h", "--help") else 2

    from uci_engine.output import Output
    from uci_engine.protocol import UciEngine

    engine = UciEngine(Output(sys.stdout.buffer))
    status = engine.run(sys.stdin.buffer)
    if engine.searching:
        # A search that would not stop must not keep the process alive after `quit`.
        sys.stdout.flush()
        os._exit(status)
    return status


if __name__ == "__main__":
    sys.exit(main())
