"""Kestrel's game model: the board, its moves and the rules, bottom layer of the engine.

``Position`` (``position.pyx``) is the Python face of the C ``Board`` (``board.pyx``):
FEN in and out, legal moves in UCI notation, push/pop, perft and the terminal verdicts
of the rules.  Nothing here imports the evaluation or the searchers.
"""

from search.board.position import STARTING_FEN, Position

__all__ = ["Position", "STARTING_FEN"]
