"""Text for the engine-user command `d`: the board, its FEN and key."""

from __future__ import annotations

from typing import Any

_RULE = " +---+---+---+---+---+---+---+---+"


def board_lines(position: Any) -> list[str]:
    """The board from White's side, then FEN, Zobrist key and a few facts, as Stockfish's `d` shows them."""
    lines = ["", _RULE]
    for rank in range(7, -1, -1):
        cells = [position.piece_at(rank * 8 + file) or " " for file in range(8)]
        lines.append(" | " + " | ".join(cells) + f" | {rank + 1}")
        lines.append(_RULE)
    lines.append("   a   b   c   d   e   f   g   h")
    lines.append("")
    lines.append(f"Fen: {position.fen()}")
    lines.append(f"Key: {position.key:016X}")
    lines.append(f"Side to move: {'white' if position.turn else 'black'}")
    lines.append(f"In check: {'yes' if position.is_check() else 'no'}")
    lines.append(f"Legal moves: {len(position.legal_moves())}")
    outcome = position.outcome()
    if outcome:
        lines.append(f"Game over: {outcome}")
    return lines
