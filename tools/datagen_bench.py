"""How fast the data generator plays, in figures that the machine's load does not move.

``python -m tools.datagen_bench --games N [--first K] [generate's game options]`` plays games
K .. K+N-1 of the run seeded ``--seed`` in this process, as one worker of ``tools.datagen generate``
plays them (the same games: a game is a function of its number, seed and settings), and prints
the positions, the CPU seconds they took (the process's own time, which other programs on the
machine barely change), positions per CPU second, and the SHA-256 of the games' records: the same
digest before and after a change proves the change kept every move, score and result.  The setup
a worker does once (imports, the searcher, the net, the tables) is timed apart.

For instruction counts, which do not move at all with load, run it under callgrind with the
interpreter itself (pyenv's ``python3`` is a shell script) and subtract a ``--games 0`` run::

    valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.%p "$(python3 -c 'import sys; print(sys.executable)')" \\
        -m tools.datagen_bench --games 6 --seed 5 ...
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time

from tools import datagen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.datagen_bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=6, help="how many games to play (default %(default)s)")
    parser.add_argument("--first", type=int, default=0, help="the first game's number (default %(default)s)")
    datagen.add_game_arguments(parser)
    args = parser.parse_args(argv)
    if args.games < 0 or args.first < 0:
        parser.error("--games and --first must be at least 0")
    settings = datagen.game_settings(parser, args)
    started = time.process_time()
    datagen.prepare_player(settings)
    setup = time.process_time() - started
    digest = hashlib.sha256()
    positions = 0
    wall, cpu = time.perf_counter(), time.process_time()
    for index in range(args.first, args.first + args.games):
        game = datagen.play_game(index, args.seed, settings)
        digest.update(game.data)
        positions += game.positions
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(f"datagen bench: {args.games} games ({args.first}..{args.first + args.games - 1}, seed {args.seed}), "
          f"{positions:,} positions, setup {setup:.2f} s CPU, play {cpu:.2f} s CPU ({wall:.2f} s wall), "
          f"{positions / max(cpu, 1e-9):.1f} positions per CPU second, records sha256 {digest.hexdigest()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
