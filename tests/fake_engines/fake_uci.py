#!/usr/bin/env python3
"""A tiny UCI engine for the tournament tests that misbehaves on purpose.

usage: fake_uci.py MODE [AFTER]

It plays the first legal move (sorted by UCI text) at once, with a made-up
score, and after AFTER of its own moves (default 3) does what MODE says:
  good       never misbehaves
  crash      exits with status 3 when asked for a move
  hang       stops answering, but keeps reading its input
  illegal    answers with a move that is not legal (a king leaping to the far rank)
  malformed  sends a garbage info line and a bestmove that is not a move
  slow       answers each move after 3 s, whatever the clock says
  silent     never answers "uci" (AFTER is ignored)
  lost       plays normally but reports a score of -1000 (to test resign adjudication)
"""

import sys
import time

import chess


def send(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "good"
    after = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    board = chess.Board()
    played = 0
    for raw in sys.stdin:
        words = raw.split()
        if not words:
            continue
        command = words[0]
        if command == "uci":
            if mode == "silent":
                continue
            send(f"id name Fake-{mode}")
            send("id author Kestrel tests")
            send("option name Hash type spin default 1 min 1 max 64")
            send("uciok")
        elif command == "isready":
            send("readyok")
        elif command == "position":
            board = position(words[1:])
        elif command == "go":
            played += 1
            misbehave = played > after
            if misbehave and mode == "crash":
                sys.exit(3)
            if misbehave and mode == "hang":
                continue
            if mode == "slow":
                time.sleep(3.0)
            move = sorted(board.legal_moves, key=lambda m: m.uci())[0]
            score = -1000 if mode == "lost" else 10
            if misbehave and mode == "malformed":
                send("info depth x score cp banana")
                send("bestmove e9")
            elif misbehave and mode == "illegal":
                king = board.king(board.turn)
                target = chess.square(chess.square_file(king), 7 - chess.square_rank(king))
                send(f"bestmove {chess.Move(king, target).uci()}")
            else:
                send(f"info depth 1 score cp {score} nodes 1 pv {move.uci()}")
                send(f"bestmove {move.uci()}")
        elif command == "quit":
            return


def position(words: list) -> chess.Board:
    if words[0] == "startpos":
        board = chess.Board()
        rest = words[1:]
    else:
        board = chess.Board(" ".join(words[1:7]))
        rest = words[7:]
    if rest and rest[0] == "moves":
        for uci in rest[1:]:
            board.push_uci(uci)
    return board


if __name__ == "__main__":
    main()
