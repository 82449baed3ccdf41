"""A Chess960 match through python-chess: `python docs/chess960_match.py GAMES [OPPONENT_ELO]`.

Kestrel (the `kestrel` on the PATH) plays Stockfish (/usr/games/stockfish, limited to
OPPONENT_ELO with UCI_LimitStrength, default 2000) from random Chess960 start positions,
each position twice with colours swapped, at 10 s + 0.1 s.  python-chess sets
UCI_Chess960 on both engines and checks every move; an illegal move would end the run
with an error.  Prints the score and the Elo difference with a 95% interval.
(The project's runner will play Chess960 itself with `-variant fischerandom`; until then
this script measures it.)
"""

from __future__ import annotations

import math
import random
import shutil
import sys

import chess
import chess.engine

STOCKFISH = "/usr/games/stockfish"


def play(white: chess.engine.SimpleEngine, black: chess.engine.SimpleEngine, start: int) -> tuple[str, int]:
    """One game from Chess960 position `start` with a 10 s + 0.1 s clock; (result, plies)."""
    board = chess.Board.from_chess960_pos(start)
    clocks = {chess.WHITE: 10.0, chess.BLACK: 10.0}
    while not board.is_game_over(claim_draw=True) and board.ply() < 400:
        engine = white if board.turn == chess.WHITE else black
        limit = chess.engine.Limit(white_clock=clocks[chess.WHITE], black_clock=clocks[chess.BLACK],
                                   white_inc=0.1, black_inc=0.1)
        result = engine.play(board, limit)
        spent = result.info.get("time", 0.0) if result.info else 0.0
        clocks[board.turn] += 0.1 - float(spent)
        if result.move is None or result.move not in board.legal_moves:
            raise RuntimeError(f"illegal move {result.move} in {board.fen()}")
        board.push(result.move)
    return board.result(claim_draw=True), board.ply()


def main(argv: list[str]) -> int:
    games = int(argv[0]) if argv else 20
    elo = int(argv[1]) if len(argv) > 1 else 2000
    kestrel_command = shutil.which("kestrel")
    if kestrel_command is None:
        print("no kestrel on the PATH", file=sys.stderr)
        return 2
    kestrel = chess.engine.SimpleEngine.popen_uci([kestrel_command])
    stockfish = chess.engine.SimpleEngine.popen_uci([STOCKFISH])
    stockfish.configure({"UCI_LimitStrength": True, "UCI_Elo": elo, "Threads": 1, "Hash": 16})
    rng = random.Random(960)
    points = 0.0
    played = 0
    try:
        while played < games:
            start = rng.randrange(960)
            for kestrel_white in (True, False):
                white, black = (kestrel, stockfish) if kestrel_white else (stockfish, kestrel)
                result, plies = play(white, black, start)
                score = {"1-0": 1.0, "0-1": 0.0}.get(result, 0.5)
                points += score if kestrel_white else 1.0 - score
                played += 1
                print(f"game {played}: position {start}, Kestrel {'white' if kestrel_white else 'black'}: "
                      f"{result} in {plies} plies", flush=True)
    finally:
        kestrel.quit()
        stockfish.quit()
    mean = points / played
    variance = max(mean * (1 - mean), 1e-9) / played
    low, high = (min(max(mean + k * 1.96 * math.sqrt(variance), 1e-6), 1 - 1e-6) for k in (-1, 1))

    def elo_of(score: float) -> float:
        return -400 * math.log10(1 / min(max(score, 1e-6), 1 - 1e-6) - 1)

    print(f"Kestrel vs Stockfish (UCI_Elo {elo}), Chess960: {points}/{played} = {100 * mean:.1f}%, "
          f"Elo {elo_of(mean):+.0f} (95%: {elo_of(low):+.0f} .. {elo_of(high):+.0f}), no illegal move")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
