"""push/pop: UCI parsing, refusals that leave the position untouched, castling and promotions."""

from __future__ import annotations

import random

import chess
import pytest

from search.board import STARTING_FEN, Position

CASTLING_FEN = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1"


def snapshot(position: Position) -> tuple:
    return position.fen(), position.key, len(position.legal_moves()), position.repetition_count()


@pytest.mark.parametrize("move", ["", "e2", "e2e", "e2e4qq", "e2e9", "i2i4", "E2E4", "e7e8k", "e2e4x", "0000",
                                  "e2-e4", "Nf3"])
def test_malformed_move_raises_and_changes_nothing(move: str) -> None:
    position = Position()
    position.push("e2e4")
    before = snapshot(position)
    with pytest.raises(ValueError, match="malformed"):
        position.push(move)
    assert snapshot(position) == before
    assert position.pop() == "e2e4"


@pytest.mark.parametrize("move", [None, 1234, b"e2e4"])
def test_move_that_is_not_a_string_raises(move: object) -> None:
    position = Position()
    # Cython's argument typing answers TypeError before push() can say ValueError; either is fine.
    with pytest.raises((TypeError, ValueError)):
        position.push(move)  # type: ignore[arg-type]
    assert position.fen() == STARTING_FEN


@pytest.mark.parametrize("fen,move", [
    (STARTING_FEN, "e2e5"),             # too far
    (STARTING_FEN, "e7e5"),             # not our piece
    (STARTING_FEN, "e1g1"),             # castling through pieces
    (STARTING_FEN, "b1d2"),             # own piece on the square
    (STARTING_FEN, "a1a1"),
    ("4k3/4P3/8/8/8/8/8/4K3 w - - 0 1", "e7e8q"),       # blocked pawn
    ("8/4P1k1/8/8/8/8/8/4K3 w - - 0 1", "e7e8"),        # a promotion needs its piece
    ("8/4P1k1/8/8/8/8/8/4K3 w - - 0 1", "e1e2q"),       # only pawns promote
    ("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", "e2e3q"),       # not on the last rank
    ("4r1k1/8/8/8/8/8/4B3/4K3 w - - 0 1", "e2d3"),      # pinned piece
    ("4k3/8/8/8/8/8/8/r3K2R w K - 0 1", "e1g1"),        # castling out of check
    ("4k3/8/8/8/8/8/8/4K2r w - - 0 1", "e1f1"),         # into check
])
def test_illegal_move_raises_and_changes_nothing(fen: str, move: str) -> None:
    position = Position(fen)
    assert move not in [m.uci() for m in chess.Board(fen).legal_moves]
    before = snapshot(position)
    with pytest.raises(ValueError, match="illegal"):
        position.push(move)
    assert snapshot(position) == before
    with pytest.raises(IndexError):
        position.pop()


def test_pop_on_empty_stack_raises_index_error() -> None:
    with pytest.raises(IndexError):
        Position().pop()
    position = Position("4k3/8/8/8/8/8/8/4K2R w K - 5 30")
    with pytest.raises(IndexError):
        position.pop()
    position.push("h1h8")
    assert position.pop() == "h1h8"
    with pytest.raises(IndexError):
        position.pop()
    assert position.fen() == "4k3/8/8/8/8/8/8/4K2R w K - 5 30"


@pytest.mark.parametrize("fen,king_move,rook_capture", [
    (CASTLING_FEN, "e1g1", "e1h1"),
    (CASTLING_FEN, "e1c1", "e1a1"),
    (CASTLING_FEN.replace(" w ", " b "), "e8g8", "e8h8"),
    (CASTLING_FEN.replace(" w ", " b "), "e8c8", "e8a8"),
])
def test_castling_as_king_move_and_as_king_takes_rook(fen: str, king_move: str, rook_capture: str) -> None:
    assert king_move in Position(fen).legal_moves()
    assert rook_capture not in Position(fen).legal_moves()
    reference = chess.Board(fen)
    reference.push_uci(king_move)
    for spelling in (king_move, rook_capture):
        position = Position(fen)
        position.push(spelling)
        assert position.fen() == reference.fen()
        assert position.key == position.computed_key() == Position(reference.fen()).key
        assert position.pop() == king_move      # the move list keeps the standard spelling
        assert position.fen() == fen


@pytest.mark.parametrize("fen,moves", [
    ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", ["e1e2"]),
    ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", ["h1g1"]),
    ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", ["a1b1", "h8h1"]),
    ("r3k2r/8/8/8/8/8/P7/R3K2R w KQkq - 0 1", ["a2a3", "a8a3"]),
    ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", ["a1a8"]),
])
def test_castling_rights_are_lost_by_king_and_rook_moves_and_captures(fen: str, moves: list) -> None:
    position, reference = Position(fen), chess.Board(fen)
    for move in moves:
        position.push(move)
        reference.push_uci(move)
        assert position.fen() == reference.fen()
        assert position.key == position.computed_key() == Position(reference.fen()).key
    assert position.fen().split()[2] != fen.split()[2]


@pytest.mark.parametrize("piece", ["q", "r", "b", "n"])
def test_promotions(piece: str) -> None:
    fen = "3r2k1/4P3/8/8/8/8/8/4K3 w - - 0 1"
    position = Position(fen)
    assert {f"e7e8{p}" for p in "qrbn"} | {f"e7d8{p}" for p in "qrbn"} <= set(position.legal_moves())
    for move in (f"e7e8{piece}", f"e7d8{piece}"):
        reference = chess.Board(fen)
        reference.push_uci(move)
        position.push(move)
        assert position.fen() == reference.fen()
        assert position.piece_at(chess.parse_square(move[2:4])) == piece.upper()
        assert position.key == position.computed_key()
        assert position.is_check() == reference.is_check()
        assert position.pop() == move
        assert position.fen() == fen


def test_black_promotion_and_promotion_moves_are_noisy() -> None:
    fen = "4k3/8/8/8/8/8/p7/1N2K3 b - - 0 1"
    position = Position(fen)
    noisy = set(position.noisy_moves())
    assert {"a2a1q", "a2a1r", "a2a1b", "a2a1n", "a2b1q", "a2b1r", "a2b1b", "a2b1n"} == noisy
    position.push("a2b1n")
    reference = chess.Board(fen)
    reference.push_uci("a2b1n")
    assert position.fen() == reference.fen()


def test_en_passant_capture_and_unmake() -> None:
    position = Position()
    for move in ("e2e4", "a7a6", "e4e5", "d7d5"):
        position.push(move)
    assert position.fen().split()[3] == "d6"
    before = (position.fen(), position.key)
    position.push("e5d6")
    assert position.piece_at(chess.D5) is None and position.piece_at(chess.D6) == "P"
    assert position.key == position.computed_key()
    assert position.pop() == "e5d6"
    assert (position.fen(), position.key) == before


def test_transposed_move_orders_give_the_same_key() -> None:
    first, second = Position(), Position()
    for move in ("g1f3", "b8c6", "b1c3", "g8f6"):
        first.push(move)
    for move in ("b1c3", "g8f6", "g1f3", "b8c6"):
        second.push(move)
    assert first.fen() == second.fen()
    assert first.key == second.key == first.computed_key() == Position(first.fen()).key
    # A different position (other side to move, or one knight elsewhere) has another key.
    third = Position()
    for move in ("g1f3", "b8c6", "b1c3", "g8h6"):
        third.push(move)
    assert third.key != first.key
    first.push("f3g1")
    assert first.key != second.key


def test_key_depends_on_ep_square_only_when_capturable() -> None:
    # A double push that no pawn can take: same key as reaching that position another way.
    direct, roundabout = Position(), Position()
    for move in ("g1f3", "g8f6", "f3g1", "f6g8", "e2e4"):
        direct.push(move)
    for move in ("e2e4", "g8f6", "g1f3", "f6g8", "f3g1"):
        roundabout.push(move)
    assert direct.fen().split()[:4] == roundabout.fen().split()[:4]
    assert direct.key == roundabout.key
    # A capturable en-passant square makes a different position (and key) from the same placement.
    with_ep = Position("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3")
    without_ep = Position("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq - 0 3")
    assert with_ep.key != without_ep.key


def test_random_transpositions_of_independent_moves() -> None:
    """Independent moves played in shuffled orders: equal positions, equal keys; different
    positions, different keys (python-chess's position identity decides which is which)."""
    white = ["a2a3", "b2b3", "d2d3", "e2e3", "g2g3", "h2h3", "g1f3", "b1c3"]
    black = ["a7a6", "b7b6", "d7d6", "e7e6", "g7g6", "h7h6", "g8f6", "b8c6"]
    rng = random.Random(7)
    key_of: dict = {}
    identity_of: dict = {}
    pairs = 0
    for _ in range(300):
        count = rng.randint(1, 5)
        chosen = (rng.sample(white, count), rng.sample(black, count))
        for _ in range(2):
            for side in chosen:
                rng.shuffle(side)
            moves = [m for pair in zip(*chosen, strict=False) for m in pair]
            position, board = Position(), chess.Board()
            for move in moves:
                position.push(move)
                board.push_uci(move)
            identity = board._transposition_key()
            if identity in key_of:
                pairs += 1
            assert key_of.setdefault(identity, position.key) == position.key, moves
            assert identity_of.setdefault(position.key, identity) == identity, moves
    assert pairs >= 300 and len(key_of) >= 100
