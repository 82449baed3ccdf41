"""Chess960 readiness: perft, castling spelled king-takes-rook, and short random games
against python-chess in Chess960 mode."""

from __future__ import annotations

import random

import chess
import pytest
from test_perft import reference_perft

from search.board import Position

# From the Chess960 perft tables (chessprogramming.org, "Chess960 Perft Results").
PUBLISHED = [
    ("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9", [21, 528, 12189]),
]
OTHER_960_FENS = [
    "2nnrbkr/p1qppppp/8/1ppb4/6PP/3PP3/PPP2P2/BQNNRBKR w HEhe - 1 9",
    "b1q1rrkb/pppppppp/3nn3/8/P7/1PPP4/4PPPP/BQNNRKRB w GE - 1 9",
    "qbbnnrkr/2pp2pp/p7/1p2pp2/8/P3PP2/1PPP1KPP/QBBNNR1R w hf - 0 9",
    "rkrnbqnb/pppppppp/8/8/8/8/PPPPPPPP/RKRNBQNB w CAca - 0 1",
    "nrkbqrbn/pppppppp/8/8/8/8/PPPPPPPP/NRKBQRBN w FBfb - 0 1",
    "bnrbkrqn/pppppppp/8/8/8/8/PPPPPPPP/BNRBKRQN w KQkq - 0 1",
]


@pytest.mark.parametrize("fen,counts", PUBLISHED)
def test_published_chess960_perft(fen: str, counts: list) -> None:
    position = Position(fen, chess960=True)
    assert position.chess960
    board = chess.Board(fen, chess960=True)
    for depth, expected in enumerate(counts, start=1):
        assert reference_perft(board, depth) == expected     # the reference agrees with the table
        assert position.perft(depth) == expected, f"perft {depth}"


@pytest.mark.parametrize("fen", OTHER_960_FENS)
def test_chess960_perft_matches_python_chess(fen: str) -> None:
    position = Position(fen, chess960=True)
    board = chess.Board(fen, chess960=True)
    assert sorted(position.legal_moves()) == sorted(m.uci() for m in board.legal_moves)
    for depth in (1, 2, 3):
        assert position.perft(depth) == reference_perft(board, depth), f"perft {depth}"


@pytest.mark.parametrize("move", ["c1h1", "c1b1"])
def test_chess960_castling_is_king_takes_rook(move: str) -> None:
    fen = "1rk4r/8/8/8/8/8/8/1RK4R w HBhb - 0 1"
    position = Position(fen, chess960=True)
    board = chess.Board(fen, chess960=True)
    assert sorted(m.uci() for m in board.legal_moves if board.is_castling(m)) == ["c1b1", "c1h1"]
    assert sorted(position.legal_moves()) == sorted(m.uci() for m in board.legal_moves)
    position.push(move)
    board.push_uci(move)
    assert position.fen() == board.fen()
    assert position.key == position.computed_key() == Position(board.fen(), chess960=True).key
    assert position.pop() == move
    assert position.fen() == chess.Board(fen, chess960=True).fen()


def test_chess960_fen_names_an_inner_castling_rook() -> None:
    """X-FEN: KQkq stand for the outermost rook; another rook is named by its file.
    Written as Q, the right below would move to the a1 rook when read back."""
    fen = "1r2k1r1/8/8/8/8/8/8/RR2K2R w Bg - 0 1"
    position = Position(fen, chess960=True)
    board = chess.Board(fen, chess960=True)
    assert sorted(position.legal_moves()) == sorted(m.uci() for m in board.legal_moves)
    assert position.fen() == board.fen()
    again = Position(position.fen(), chess960=True)
    assert sorted(again.legal_moves()) == sorted(m.uci() for m in board.legal_moves)


def random_960_start(rng: random.Random) -> str:
    return chess.Board.from_chess960_pos(rng.randrange(960)).fen()


def test_chess960_random_games_against_python_chess() -> None:
    rng = random.Random(960)
    castles = positions = 0
    for _ in range(25):
        fen = random_960_start(rng)
        position = Position(fen, chess960=True)
        board = chess.Board(fen, chess960=True)
        for _ in range(120):
            context = f"{fen} moves {' '.join(m.uci() for m in board.move_stack)}"
            assert position.fen() == board.fen(), context
            legal = list(board.legal_moves)
            assert sorted(position.legal_moves()) == sorted(m.uci() for m in legal), context
            assert position.key == position.computed_key(), context
            assert (position.is_check(), position.is_checkmate(), position.is_stalemate()) == \
                (board.is_check(), board.is_checkmate(), board.is_stalemate()), context
            positions += 1
            if not legal:
                break
            castling = [m for m in legal if board.is_castling(m)]
            move = rng.choice(castling) if castling and rng.random() < 0.7 else rng.choice(legal)
            castles += board.is_castling(move)
            position.push(move.uci())
            board.push(move)
    assert positions > 1000 and castles >= 20
