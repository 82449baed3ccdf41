"""FEN in and out: malformed FENs are refused with the reason, good ones round-trip as
python-chess writes them (the en-passant square only when a capture is legal)."""

from __future__ import annotations

import chess
import pytest

from search.board import STARTING_FEN, Position

START_PLACEMENT = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"

MALFORMED = [
    # (what is wrong, FEN, a substring the message must contain)
    ("three fields", f"{START_PLACEMENT} w KQkq", "got 3"),
    ("seven fields", f"{STARTING_FEN} extra", "got 7"),
    ("empty string", "", "got 0"),
    ("bad piece letter", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1", "bad piece letter 'X'"),
    ("digit zero", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN0 w KQkq - 0 1", "bad piece letter '0'"),
    ("digit nine", "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "'9'"),
    ("rank too long", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNRR w KQkq - 0 1", "more than 8 squares"),
    ("rank too long by a count", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN2 w KQkq - 0 1", "rank 1"),
    ("rank too short", "rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "covers 7 squares, not 8"),
    ("empty rank", "rnbqkbnr/pppppppp//8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "covers 0 squares"),
    ("seven ranks", "rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "8 ranks"),
    ("nine ranks", "rnbqkbnr/pppppppp/8/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "got 9"),
    ("black king missing", "rnbq1bnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1",
     "black must have exactly one king; the FEN gives 0"),
    ("white king missing", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1BNR w kq - 0 1",
     "white must have exactly one king; the FEN gives 0"),
    ("two white kings", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNK w kq - 0 1",
     "white must have exactly one king; the FEN gives 2"),
    ("ep square on the wrong rank", f"{START_PLACEMENT} w KQkq e3 0 1", "impossible en-passant square 'e3'"),
    ("ep square with no pawn passed", f"{START_PLACEMENT} w KQkq e6 0 1", "impossible en-passant square 'e6'"),
    ("ep square off the board", f"{START_PLACEMENT} w KQkq e9 0 1", "en-passant square 'e9'"),
    ("ep square not a square", f"{START_PLACEMENT} w KQkq x 0 1", "en-passant square 'x'"),
    ("ep pawn passed a square that is occupied", "rn1qkbnr/ppp1pppp/3b4/3p4/8/8/PPPPPPPP/RNBQKBNR w KQkq d6 0 1",
     "impossible en-passant square 'd6'"),
    ("side not to move in check", "4k3/4R3/8/8/8/8/8/4K3 w - - 0 1", "the side not to move is in check"),
    ("side not to move in check by a pawn", "4k3/8/8/8/8/8/3p4/4K3 b - - 0 1", "the side not to move is in check"),
    ("side to move letter", f"{START_PLACEMENT} x KQkq - 0 1", "side to move must be 'w' or 'b', not 'x'"),
    ("side to move upper case", f"{START_PLACEMENT} W KQkq - 0 1", "side to move must be 'w' or 'b'"),
    ("half-move clock not a number", f"{START_PLACEMENT} w KQkq - a 1", "must be whole numbers"),
    ("move number not a number", f"{START_PLACEMENT} w KQkq - 0 z", "must be whole numbers"),
    ("negative half-move clock", f"{START_PLACEMENT} w KQkq - -1 1", "between 0 and"),
    ("white pawn on the last rank", "Pnbqkbnr/pppppppp/8/8/8/8/1PPPPPPP/RNBQKBNR w KQkq - 0 1",
     "pawn stands on the first or last rank"),
    ("black pawn on the first rank", "rnbqkbnr/1ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNp w kq - 0 1",
     "pawn stands on the first or last rank"),
    ("nine white pawns", "rnbqkbnr/pppppppp/8/8/8/P7/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
     "white has more pieces than promotions could give"),
    ("a queen too many", "rnbqkbnr/pppppppp/8/8/8/Q7/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
     "white has more pieces than promotions could give"),
    ("three black knights and eight pawns", "rnbqkbnr/pppppppp/n7/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
     "black has more pieces than promotions could give"),
    ("bad castling letter", "4k3/8/8/8/8/8/8/4K3 w Z - 0 1", "bad castling field 'Z'"),
    ("checked by three pieces", "4k3/8/8/8/8/3n1n2/8/r3K3 w - - 0 1", "more than two pieces"),
]


@pytest.mark.parametrize("fen,message", [(fen, message) for _, fen, message in MALFORMED],
                         ids=[name for name, _, _ in MALFORMED])
def test_malformed_fen_raises_value_error_with_reason(fen: str, message: str) -> None:
    with pytest.raises(ValueError) as error:
        Position(fen)
    assert message in str(error.value)


def test_malformed_fens_are_malformed_for_python_chess_too() -> None:
    """The refusals above are real faults: python-chess refuses each FEN or calls it invalid."""
    for name, fen, _ in MALFORMED:
        try:
            board = chess.Board(fen)
        except ValueError:
            continue
        assert not board.is_valid() or board.fen() != fen, name


def test_non_string_fen_is_refused() -> None:
    with pytest.raises((TypeError, ValueError), match="str"):
        Position(42)  # type: ignore[arg-type]


def test_failed_reinit_leaves_the_position_as_it_was() -> None:
    position = Position()
    position.push("e2e4")
    position.push("c7c5")
    fen, key = position.fen(), position.key
    for _, bad, _ in MALFORMED:
        with pytest.raises(ValueError):
            position.__init__(bad)
        assert position.fen() == fen and position.key == key
    # It keeps working: moves, verdicts and history are intact.
    assert sorted(position.legal_moves()) == sorted(m.uci() for m in chess.Board(fen).legal_moves)
    position.push("g1f3")
    assert position.pop() == "g1f3"
    assert position.pop() == "c7c5"
    assert position.pop() == "e2e4"
    assert position.fen() == STARTING_FEN
    with pytest.raises(IndexError):
        position.pop()


def test_good_position_is_unaffected_by_a_bad_one() -> None:
    good = Position()
    with pytest.raises(ValueError):
        Position("8/8/8/8/8/8/8/8 w - - 0 1")
    assert good.fen() == STARTING_FEN and good.perft(3) == 8902


@pytest.mark.parametrize("fen", [
    # The square is valid (a pawn just passed it) but no capture is possible: written '-'.
    "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
    "4k3/8/8/8/4P3/8/8/4K3 b - e3 0 1",
    # A capturer exists but taking would expose its king along the rank.
    "8/8/8/8/k2Pp2Q/8/8/4K3 b - d3 0 1",
    # ... or along a diagonal.
    "7k/8/8/8/3Pp3/8/8/B3K3 b - d3 0 1",
    # The capture is possible: the square stays.
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1",
])
def test_en_passant_square_written_as_python_chess_writes_it(fen: str) -> None:
    assert Position(fen).fen() == chess.Board(fen).fen()


def test_unusable_ep_square_is_normalized() -> None:
    fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
    assert Position(fen).fen().split()[3] == "-"
    assert Position(fen).key == Position(fen.replace(" e3 ", " - ")).key


@pytest.mark.parametrize("fen,written", [
    ("4k3/8/8/8/8/8/8/4K3 w KQkq - 0 1", "4k3/8/8/8/8/8/8/4K3 w - - 0 1"),   # rights without rooks
    ("4k3/8/8/8/8/8/8/4K3 w - -", "4k3/8/8/8/8/8/8/4K3 w - - 0 1"),          # clocks omitted
    ("4k3/8/8/8/8/8/8/4K3 b - - 7", "4k3/8/8/8/8/8/8/4K3 b - - 7 1"),
    ("4k3/8/8/8/8/8/8/4K3 w - - 0 0", "4k3/8/8/8/8/8/8/4K3 w - - 0 1"),      # move number 0 read as 1
])
def test_lenient_fields_are_normalized(fen: str, written: str) -> None:
    assert Position(fen).fen() == written


@pytest.mark.parametrize("fen", [
    STARTING_FEN,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r3k2r/8/8/8/8/8/8/R3K2R b Kq - 12 40",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "4k3/8/8/8/8/8/8/4K3 w - - 99 200",
])
def test_round_trip(fen: str) -> None:
    position = Position(fen)
    assert position.fen() == fen
    assert Position(position.fen()).key == position.key == position.computed_key()
    assert position.turn == (fen.split()[1] == "w")
    assert position.halfmove_clock == int(fen.split()[4])
    assert position.fullmove_number == int(fen.split()[5])
