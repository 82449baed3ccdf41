"""Positions from random legal play, for tests that compare the core with python-chess."""

from __future__ import annotations

import random

import chess


def random_boards(count: int, seed: int, max_plies: int) -> list[chess.Board]:
    """`count` boards, each after up to `max_plies` random legal moves from the start (seeded)."""
    rng = random.Random(seed)
    boards = []
    for _ in range(count):
        board = chess.Board()
        for _ in range(rng.randrange(max_plies)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        boards.append(board)
    return boards
