"""Positions from random legal play, for tests that compare the core with python-chess."""

from __future__ import annotations

import random
from collections.abc import Sequence

import chess


def random_boards(count: int, seed: int, max_plies: int,
                  starts: Sequence[chess.Board] = (chess.Board(),)) -> list[chess.Board]:
    """`count` boards, each after up to `max_plies` random legal moves (seeded) from one of `starts`,
    taken in turn (the standard start by default)."""
    rng = random.Random(seed)
    boards = []
    for index in range(count):
        board = starts[index % len(starts)].copy()
        for _ in range(rng.randrange(max_plies)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        boards.append(board)
    return boards
