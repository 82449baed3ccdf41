"""Does Kestrel convert a tablebase win on a short clock? One game from KQ v KR against Stockfish.

``python -m tools.tb_clock_check [--clock 0.6] [--increment 0.1] [--dir CHECKOUT]`` plays Kestrel
(White, ``SyzygyPath`` set) against Stockfish 15.1 from a won KQ v KR position, both on the same
clock, the time each move took charged to its side, and prints the result, the plies and Kestrel's
clock at the end, or the ply at which it lost on time. It checks the root probe's clock budget
(uci_engine/protocol.py): python-chess reads DTZ for every root move, and in KQ v KR that costs
more than a 0.1 s increment.
"""
from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import chess
import chess.engine

REPO = Path(__file__).resolve().parent.parent
START = "8/4kr2/8/8/3K4/8/8/6Q1 w - - 0 1"


def play(checkout: Path, clock: float, increment: float, syzygy: Path, stockfish: str) -> str:
    """One game from START on `clock` + `increment` seconds; a line that says how it ended."""
    kestrel = chess.engine.SimpleEngine.popen_uci([sys.executable, "-m", "uci_engine"], cwd=checkout)
    opponent = chess.engine.SimpleEngine.popen_uci(stockfish)
    try:
        kestrel.configure({"SyzygyPath": str(syzygy)})
        board = chess.Board(START)
        left = {chess.WHITE: clock, chess.BLACK: clock}
        while not board.is_game_over(claim_draw=True):
            limit = chess.engine.Limit(white_clock=left[chess.WHITE], black_clock=left[chess.BLACK],
                                       white_inc=increment, black_inc=increment)
            started = time.perf_counter()
            move = (kestrel if board.turn == chess.WHITE else opponent).play(board, limit).move
            if move is None:
                return f"no move at ply {board.ply()}"
            left[board.turn] += increment - (time.perf_counter() - started)
            if left[board.turn] < 0:
                side = "Kestrel" if board.turn == chess.WHITE else "Stockfish"
                return f"{side} lost on time at ply {board.ply()}"
            board.push(move)
        return f"{board.result(claim_draw=True)} in {board.ply()} plies, Kestrel's clock {left[chess.WHITE]:.2f} s"
    finally:
        kestrel.quit()
        opponent.quit()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.tb_clock_check", description=__doc__.splitlines()[0])
    parser.add_argument("--clock", type=float, default=0.6, help="seconds on each clock at the start")
    parser.add_argument("--increment", type=float, default=0.1, help="seconds added after each move")
    parser.add_argument("--dir", type=Path, default=REPO, help="the checkout whose engine plays")
    parser.add_argument("--syzygy", type=Path, default=REPO.parent / "shared" / "data" / "syzygy")
    parser.add_argument("--stockfish", default="/usr/games/stockfish")
    args = parser.parse_args(argv)
    print(play(args.dir, args.clock, args.increment, args.syzygy, args.stockfish))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
