"""Perft: the published counts of the 126-position suite, and divide against python-chess."""

from __future__ import annotations

import chess
import pytest
from conftest import SHARED_DATA, shared_data_path

from search.board import Position

SUITE_NAME = "perftsuite.epd"
SUITE_SIZE = 126
# Depths whose published count is at most this many leaves are checked in the test run.
MAX_LEAVES = 2_000_000

Entry = tuple[str, list[tuple[int, int]]]


def parse_suite_line(line: str) -> Entry:
    """'<fen> ;D1 n ;D2 n ...' -> (fen, [(1, n), (2, n), ...])."""
    fields = line.split(";")
    counts = []
    for field in fields[1:]:
        depth, count = field.split()
        assert depth.startswith("D"), f"bad depth field {field!r} in {line!r}"
        counts.append((int(depth[1:]), int(count)))
    return fields[0].strip(), counts


def load_suite() -> list[Entry]:
    with open(shared_data_path(SUITE_NAME)) as handle:
        return [parse_suite_line(line) for line in handle if line.strip()]


def suite_params() -> list:
    """One parameter per suite position; if the file is missing, one that fails saying so."""
    if not (SHARED_DATA / SUITE_NAME).is_file():
        return [pytest.param(None, id=f"{SUITE_NAME}-missing")]
    return [pytest.param(entry, id=f"{index:03d}:{entry[0].split()[0]}")
            for index, entry in enumerate(load_suite())]


def test_suite_is_complete() -> None:
    suite = load_suite()
    assert len(suite) == SUITE_SIZE
    for fen, counts in suite:
        assert [depth for depth, _ in counts] == list(range(1, len(counts) + 1)), fen


@pytest.mark.parametrize("entry", suite_params())
def test_perft_suite_position(entry: Entry) -> None:
    if entry is None:
        shared_data_path(SUITE_NAME)   # fails with the expected location
        pytest.fail(f"{SUITE_NAME} appeared during the run; rerun the tests")
    fen, counts = entry
    position = Position(fen)
    checked = [(depth, expected) for depth, expected in counts if expected <= MAX_LEAVES]
    assert checked, f"no depth of {fen} has at most {MAX_LEAVES} leaves"
    got = [(depth, position.perft(depth)) for depth, _ in checked]
    assert got == checked, f"perft mismatch for {fen}"
    # Perft must leave the position as it found it.
    assert position.fen() == chess.Board(fen).fen()
    assert position.key == position.computed_key()


def reference_perft(board: chess.Board, depth: int) -> int:
    if depth == 0:
        return 1
    if depth == 1:
        return board.legal_moves.count()
    nodes = 0
    for move in list(board.legal_moves):
        board.push(move)
        nodes += reference_perft(board, depth - 1)
        board.pop()
    return nodes


def reference_divide(board: chess.Board, depth: int) -> dict[str, int]:
    result = {}
    for move in list(board.legal_moves):
        board.push(move)
        result[move.uci()] = reference_perft(board, depth - 1)
        board.pop()
    return result


DIVIDE_CASES = [
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 3),
    ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 3),   # kiwipete
    ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 3),                               # en passant pins
    ("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 3),         # promotions
    ("rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 2),
    ("r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", 2),
    ("8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1", 3),                                        # ep evasion of a check
]


@pytest.mark.parametrize("fen,depth", DIVIDE_CASES, ids=[f"{i}-d{d}" for i, (_, d) in enumerate(DIVIDE_CASES)])
def test_divide_matches_python_chess(fen: str, depth: int) -> None:
    ours = Position(fen).divide(depth)
    reference = reference_divide(chess.Board(fen), depth)
    missing = sorted(set(reference) - set(ours))
    extra = sorted(set(ours) - set(reference))
    assert not missing and not extra, f"{fen}: moves missing {missing}, extra {extra}"
    wrong = {move: (ours[move], reference[move]) for move in reference if ours[move] != reference[move]}
    assert not wrong, f"{fen} divide {depth}: (ours, python-chess) per move {wrong}"
    assert sum(ours.values()) == Position(fen).perft(depth)


def test_perft_depth_zero_and_divide_depth_zero() -> None:
    position = Position()
    assert position.perft(0) == 1
    assert position.divide(0) == {}
    assert position.perft(1) == len(position.legal_moves()) == 20


def test_missing_shared_data_fails_with_its_location() -> None:
    with pytest.raises(pytest.fail.Exception, match="not found: expected it at .*shared.*data"):
        shared_data_path("no-such-file.epd")
