"""What `Position` tells the tools and the WDL model about its pieces, against python-chess."""

from __future__ import annotations

import chess
from random_play import random_boards

from search.board.position import PAWN_UNITS, Position
from search.wdl import material_of

VALUES = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9, chess.KING: 0}


def test_piece_counts_are_python_chess_counts() -> None:
    for board in random_boards(40, seed=3, max_plies=160):
        counts = Position(board.fen()).piece_counts()
        assert set(counts) == set("PNBRQKpnbrqk")
        for letter, count in counts.items():
            piece = chess.Piece.from_symbol(letter)
            assert count == len(board.pieces(piece.piece_type, piece.color)), (board.fen(), letter)


def test_material_counts_both_sides_without_kings() -> None:
    assert PAWN_UNITS == {chess.piece_symbol(kind): worth for kind, worth in VALUES.items()}
    assert material_of(Position()) == 78
    assert material_of(Position("4k3/8/8/8/8/8/8/4K3 w - - 0 1")) == 0
    for board in random_boards(40, seed=4, max_plies=160):
        expected = sum(VALUES[piece.piece_type] for piece in board.piece_map().values())
        assert material_of(Position(board.fen())) == expected, board.fen()


def test_the_counts_follow_the_moves() -> None:
    position = Position("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1")
    position.push("e4d5")
    assert position.piece_counts()["p"] == 0 and position.piece_counts()["P"] == 1
    position.pop()
    assert position.piece_counts()["p"] == 1
