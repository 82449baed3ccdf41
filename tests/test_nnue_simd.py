"""The net's SIMD loops (eval/nnue_simd.h) against its portable ones: the same accumulators and
evaluations, bit for bit, on random nets of several shapes and positions reached move by move."""

from __future__ import annotations

import platform
import random
from array import array
from collections.abc import Iterator
from pathlib import Path

import chess
import pytest
from net_files import random_parameters
from nnue_internals import IncrementalNnue, use_simd

from eval.nnue import Network, kernels
from eval.nnue_architecture import INPUTS
from search.board.position import Position

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
PROMOTIONS = "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1"
CHESS960 = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9"


@pytest.fixture(autouse=True)
def fastest_kernels_afterwards() -> Iterator[None]:
    """The choice of loops is the whole process's: the other tests get the fastest back."""
    yield
    use_simd(True)


def cpu_has_avx2() -> bool | None:
    """What Linux says of this CPU (it lists avx2 only where the OS saves the ymm registers); None
    where this test cannot tell."""
    if platform.system() != "Linux":
        return None
    if platform.machine() not in ("x86_64", "i686", "i386"):
        return False
    flags = next(line for line in Path("/proc/cpuinfo").read_text().splitlines() if line.startswith("flags"))
    return "avx2" in flags.split()


def test_the_fastest_kernels_are_the_cpus() -> None:
    has_avx2 = cpu_has_avx2()
    assert use_simd(True) == (kernels() == "avx2")
    if has_avx2 is not None:
        assert kernels() == ("avx2" if has_avx2 else "portable")
    assert use_simd(False) is False
    assert kernels() == "portable"


def wrapping_parameters(hidden: int) -> dict[str, object]:
    """Feature weights near the int16 limits: sums of a few rows wrap, in both loops alike."""
    rng = random.Random(hidden)
    parameters = random_parameters(hidden=hidden, seed=5)
    parameters["feature_weights"] = array("h", [rng.choice((-32768, 32767, rng.randint(-32768, 32767)))
                                                for _ in range(INPUTS * hidden)])
    return parameters


# (parameters, the output layer's chunk, what they cover); every width is a multiple of 16, and the
# AVX2 loops hold 128 lanes at a time.
NETS = [
    (random_parameters(hidden=16, seed=1), 16, "narrower than a tile"),
    (random_parameters(hidden=144, seed=2, output_range=113, feature_set=1), 144,
     "a tile and 16 lanes, |qa * w| near the int16 bound"),
    (random_parameters(hidden=128, seed=3, buckets=8, feature_set=1), 128, "the shipped shape, 8 buckets"),
    (random_parameters(hidden=256, seed=4, output_range=200), 0, "the 64-bit output path"),
    ({**random_parameters(hidden=256, seed=6, output_range=28), "qa": 1000}, 64, "four 32-bit chunks"),
    (wrapping_parameters(48), 48, "int16 sums that wrap"),
]


def walk(network: Network, fen: str, chess960: bool, seed: int, plies: int) -> Iterator[IncrementalNnue]:
    """A board with accumulators kept move by move through a random game, with take-backs and null
    moves as a search makes them; yields it after every step."""
    rng = random.Random(seed)
    board = chess.Board(fen, chess960=chess960)
    incremental = IncrementalNnue(network, Position(fen, chess960=chess960))
    for _ in range(plies):
        moves = list(board.legal_moves)
        if not moves:
            break
        if board.move_stack and rng.random() < 0.2:
            incremental.pop()
            board.pop()
        elif not board.is_check() and rng.random() < 0.05:
            incremental.push("0000")
            board.push(chess.Move.null())
        else:
            move = rng.choice(moves)
            incremental.push(move.uci())
            board.push(move)
        yield incremental


@pytest.mark.parametrize("index", range(len(NETS)), ids=[what for _, _, what in NETS])
def test_simd_and_portable_loops_give_the_same_numbers(index: int) -> None:
    parameters, chunk, _ = NETS[index]
    network = Network(**parameters)
    assert network.output_chunk == chunk
    starts = [(chess.STARTING_FEN, False), (KIWIPETE, False), (PROMOTIONS, False), (CHESS960, True)]
    compared = 0
    for game, (fen, chess960) in enumerate(starts):
        # Two boards walk the same game, each with its own accumulators made by one kind of loop.
        fast = walk(network, fen, chess960, seed=game, plies=60)
        portable = walk(network, fen, chess960, seed=game, plies=60)
        for fast_board, portable_board in zip(fast, portable, strict=True):
            use_simd(True)
            fast_numbers = (fast_board.evaluate(), fast_board.accumulators(), fast_board.refreshed())
            use_simd(False)
            portable_numbers = (portable_board.evaluate(), portable_board.accumulators(), portable_board.refreshed())
            assert fast_numbers == portable_numbers, fast_board.fen()
            compared += 1
    assert compared > 150
