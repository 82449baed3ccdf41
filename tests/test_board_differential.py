"""The board against python-chess, position by position, over seeded random games.

The games are steered (mates in one, en passant, castling, promotions, captures,
shuffling back and forth, sparse endgames with a high half-move clock) so that every
rule of the game is met; the test counts how often and asserts that it was.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Hashable
from dataclasses import dataclass, field

import chess
import pytest

from search.board import Position

SEED = 20240607
MIN_POSITIONS = 10_000

MIDDLEGAME_FENS = [
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
    "4k3/pppppppp/8/8/8/8/PPPPPPPP/4K3 w - - 0 1",
    "rnbqkbnr/pp1ppppp/8/2pP4/8/8/PPP1PPPP/RNBQKBNR b KQkq - 0 2",
    # Openings with both sides ready to castle either way.
    "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/2N2N2/PPPP1PPP/R1BQK2R w KQkq - 6 5",
    "r3kb1r/pppqpppp/2n2n2/3p1b2/3P1B2/2N2N2/PPPQPPPP/R3KB1R w KQkq - 6 6",
    "r3k2r/pppq1ppp/2npbn2/2b1p3/2B1P3/2NPBN2/PPPQ1PPP/R3K2R w KQkq - 4 8",
    # A knight in front of a rook: double checks at hand.
    "r3k3/ppp5/8/8/4N3/8/PPP5/4RK2 w q - 0 1",
    "4rk2/ppp5/8/4n3/8/8/PPP5/R3K3 b Q - 0 1",
]

# Material besides the two kings for the sparse starts (lower case: the other side).
ENDGAME_MATERIAL = [
    "Q", "R", "BN", "N", "B", "NN", "Bb", "BB", "Nn", "Bn", "P", "Pp", "PP", "Rr", "Qq",
    "RP", "Rp", "QR", "PPpp", "Np", "Bp", "Qp", "RBr", "",
]


@dataclass
class KeyIndex:
    """Zobrist keys of every position seen, against python-chess's view of its identity."""
    by_identity: dict[Hashable, int] = field(default_factory=dict)
    by_fen: dict[str, int] = field(default_factory=dict)
    identity_of_key: dict[int, Hashable] = field(default_factory=dict)

    def record(self, board: chess.Board, key: int, context: str) -> None:
        identity = board._transposition_key()
        fen4 = " ".join(board.fen().split()[:4])
        assert self.by_identity.setdefault(identity, key) == key, f"same position, different keys: {context}"
        assert self.by_fen.setdefault(fen4, key) == key, f"same FEN, different keys: {context}"
        assert self.identity_of_key.setdefault(key, identity) == identity, \
            f"different positions share key {key:#x}: {context}"


@dataclass
class Plan:
    """Per-game steering."""
    capture_bias: float
    shuffle_chance: float
    shuffle_left: int = 0


def context_of(root_fen: str, board: chess.Board) -> str:
    return f"position fen {root_fen} moves {' '.join(m.uci() for m in board.move_stack)}"


def expected_outcome(board: chess.Board) -> str | None:
    """Our outcome() convention in python-chess terms: draws by repetition and the
    50-move rule count as claimed."""
    if board.is_checkmate():
        return "0-1" if board.turn == chess.WHITE else "1-0"
    if board.is_stalemate():
        return "1/2-1/2"
    if board.is_insufficient_material() or board.halfmove_clock >= 100 or board.is_repetition(3):
        return "1/2-1/2"
    return None


def check_position(ours: Position, board: chess.Board, root_fen: str, keys: KeyIndex,
                   stats: Counter) -> dict[str, str]:
    """Compare everything at one position; return {uci: 'mate', 'stalemate', 'check' or ''}
    for its legal moves."""
    context = context_of(root_fen, board)
    fen = board.fen()
    assert ours.fen() == fen, context
    assert ours.turn == board.turn and ours.halfmove_clock == board.halfmove_clock \
        and ours.fullmove_number == board.fullmove_number, context

    legal = ours.legal_moves()
    reference = sorted(move.uci() for move in board.legal_moves)
    assert len(set(legal)) == len(legal), f"duplicate legal moves {sorted(legal)}: {context}"
    assert sorted(legal) == reference, \
        f"extra {sorted(set(legal) - set(reference))}, missing {sorted(set(reference) - set(legal))}: {context}"

    in_check = board.is_check()
    noisy = ours.noisy_moves()
    reference_noisy = sorted(move.uci() for move in board.legal_moves
                             if in_check or board.is_capture(move) or move.promotion)
    assert len(set(noisy)) == len(noisy), context
    assert sorted(noisy) == reference_noisy, \
        f"noisy extra {sorted(set(noisy) - set(reference_noisy))}, missing " \
        f"{sorted(set(reference_noisy) - set(noisy))}: {context}"

    verdicts = {
        "check": (ours.is_check(), in_check),
        "checkmate": (ours.is_checkmate(), board.is_checkmate()),
        "stalemate": (ours.is_stalemate(), board.is_stalemate()),
        "insufficient material": (ours.is_insufficient_material(), board.is_insufficient_material()),
        "white insufficient": (ours.has_insufficient_material(True), board.has_insufficient_material(chess.WHITE)),
        "black insufficient": (ours.has_insufficient_material(False), board.has_insufficient_material(chess.BLACK)),
        "fifty moves": (ours.is_fifty_moves(), board.is_fifty_moves()),
        "twofold": (ours.repetition_count() >= 2, board.is_repetition(2)),
        "threefold": (ours.repetition_count() >= 3, board.is_repetition(3)),
        "is_repetition()": (ours.is_repetition(), board.is_repetition(3)),
        "outcome": (ours.outcome(), expected_outcome(board)),
    }
    wrong = {name: pair for name, pair in verdicts.items() if pair[0] != pair[1]}
    assert not wrong, f"(ours, python-chess) differ: {wrong}: {context}"

    key = ours.key
    assert key == ours.computed_key(), f"incremental key differs from the key from scratch: {context}"
    assert Position(fen).key == key, f"key depends on the move order, not the position: {context}"
    keys.record(board, key, context)

    for name in ("check", "checkmate", "stalemate", "insufficient material", "fifty moves",
                 "twofold", "threefold"):
        stats[name] += verdicts[name][1] is True
    stats["double check"] += len(board.checkers()) >= 2
    stats["en-passant square in FEN"] += fen.split()[3] != "-"
    stats["positions"] += 1

    # Make and unmake every legal move: exact restoration, keys consistent in every child.
    children = {}
    for uci in legal:
        ours.push(uci)
        assert ours.key == ours.computed_key(), f"after {uci}: incremental key wrong: {context}"
        children[uci] = ("mate" if ours.is_checkmate() else "stalemate" if ours.is_stalemate()
                         else "check" if ours.is_check() else "")
        assert ours.pop() == uci, context
        assert ours.fen() == fen and ours.key == key, f"pop after {uci} did not restore: {context}"
    stats["children made and unmade"] += len(legal)
    return children


def gives_double_check(board: chess.Board, move: chess.Move) -> bool:
    board.push(move)
    double = len(board.checkers()) >= 2
    board.pop()
    return double


def choose_move(rng: random.Random, board: chess.Board, children: dict[str, str], plan: Plan) -> chess.Move:
    legal = list(board.legal_moves)
    if plan.shuffle_left == 0 and rng.random() < plan.shuffle_chance:
        plan.shuffle_left = rng.randint(4, 12)
    if plan.shuffle_left and len(board.move_stack) >= 2:
        plan.shuffle_left -= 1
        previous = board.move_stack[-2]
        back = chess.Move(previous.to_square, previous.from_square)
        if not previous.promotion and back in legal:
            return back
    checking = [move for move in legal if children[move.uci()] == "check"]
    preferences = [
        ([move for move in legal if children[move.uci()] == "mate"], 0.9),
        ([move for move in legal if children[move.uci()] == "stalemate"], 0.5),
        ([move for move in checking if gives_double_check(board, move)], 0.8),
        ([move for move in legal if board.is_en_passant(move)], 0.9),
        ([move for move in legal if board.is_castling(move)], 0.8),
        ([move for move in legal if move.promotion and board.is_capture(move)], 0.8),
        ([move for move in legal if move.promotion], 0.8),
        (checking, 0.15),
        # Double pushes beside an enemy pawn offer an en-passant capture.
        ([move for move in legal if board.piece_type_at(move.from_square) == chess.PAWN
          and abs(move.to_square - move.from_square) == 16
          and any(board.piece_at(sq) == chess.Piece(chess.PAWN, not board.turn)
                  for sq in (move.to_square - 1, move.to_square + 1)
                  if chess.square_rank(sq) == chess.square_rank(move.to_square))], 0.3),
        ([move for move in legal if board.is_capture(move)], plan.capture_bias),
    ]
    for moves, chance in preferences:
        if moves and rng.random() < chance:
            return rng.choice(moves)
    return rng.choice(legal)


def count_move(board: chess.Board, move: chess.Move, stats: Counter) -> None:
    if board.is_castling(move):
        stats["castling kingside" if board.is_kingside_castling(move) else "castling queenside"] += 1
    if board.is_en_passant(move):
        stats["en passant"] += 1
    if move.promotion:
        stats["promotion"] += 1
        stats["underpromotion"] += move.promotion != chess.QUEEN
        stats["capture with promotion"] += board.is_capture(move)
    if board.piece_type_at(move.from_square) == chess.PAWN and abs(move.to_square - move.from_square) == 16:
        stats["double push"] += 1


def play_game(rng: random.Random, root_fen: str, max_plies: int, plan: Plan, keys: KeyIndex,
              stats: Counter) -> None:
    ours = Position(root_fen)
    board = chess.Board(root_fen)
    while len(board.move_stack) < max_plies:
        children = check_position(ours, board, root_fen, keys, stats)
        if ours.is_insufficient_material():
            # A few more plies of a dead draw are enough.
            max_plies = min(max_plies, len(board.move_stack) + 8)
        if not children:
            stats["games ended by mate or stalemate"] += 1
            break
        move = choose_move(rng, board, children, plan)
        count_move(board, move, stats)
        ours.push(move.uci())
        board.push(move)
    else:
        check_position(ours, board, root_fen, keys, stats)
    # Unwind the whole game: every pop restores the FEN and key the position had.
    while board.move_stack:
        board.pop()
        ours.pop()
        assert ours.fen() == board.fen() and ours.key == ours.computed_key(), context_of(root_fen, board)
    with pytest.raises(IndexError):
        ours.pop()


def random_endgame_fen(rng: random.Random) -> str:
    while True:
        material = rng.choice(ENDGAME_MATERIAL)
        if rng.random() < 0.5:
            material = material.swapcase()
        pieces = ["K", "k"] + list(material)
        board = chess.Board(None)
        squares = rng.sample(chess.SQUARES, len(pieces))
        if any(p in "Pp" and chess.square_rank(sq) in (0, 7) for p, sq in zip(pieces, squares, strict=True)):
            continue
        for letter, square in zip(pieces, squares, strict=True):
            board.set_piece_at(square, chess.Piece.from_symbol(letter))
        board.turn = rng.random() < 0.5
        board.halfmove_clock = rng.choice([0, 20, 60, 85, 96])
        board.fullmove_number = rng.randint(1, 90)
        if board.is_valid():
            return board.fen()


@pytest.mark.slow
def test_differential_against_python_chess() -> None:
    rng = random.Random(SEED)
    keys = KeyIndex()
    stats: Counter = Counter()
    for _ in range(60):
        play_game(rng, chess.STARTING_FEN, 400, Plan(rng.uniform(0.2, 0.7), 0.02), keys, stats)
    for fen in MIDDLEGAME_FENS:
        for _ in range(3):
            play_game(rng, fen, 200, Plan(rng.uniform(0.2, 0.7), 0.02), keys, stats)
    for _ in range(70):
        play_game(rng, random_endgame_fen(rng), 120, Plan(0.3, 0.05), keys, stats)

    print("\n" + "\n".join(f"  {name}: {count}" for name, count in sorted(stats.items())))
    assert stats["positions"] >= MIN_POSITIONS
    minimums = {
        "castling kingside": 20, "castling queenside": 10, "en passant": 20, "double push": 100,
        "en-passant square in FEN": 20, "promotion": 30, "underpromotion": 10,
        "capture with promotion": 5, "check": 500, "double check": 5, "checkmate": 20,
        "stalemate": 3, "insufficient material": 100, "fifty moves": 100, "twofold": 300,
        "threefold": 30, "games ended by mate or stalemate": 20,
    }
    short = {name: (stats[name], need) for name, need in minimums.items() if stats[name] < need}
    assert not short, f"categories met too rarely (got, needed): {short}"
    # Different positions met along the way all had different keys (checked in KeyIndex).
    assert len(keys.by_identity) == len(keys.identity_of_key) > MIN_POSITIONS // 2
