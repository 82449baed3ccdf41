"""Kestrel's game model and searchers.

``Position`` is the Python face of the C board: FEN in and out, legal moves in UCI
notation, push/pop, perft and the terminal verdicts of the rules.
"""

from search.game import Position, STARTING_FEN

__all__ = ["Position", "STARTING_FEN"]
