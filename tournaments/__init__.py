"""Kestrel's tournament runner: matches, round robins, gauntlets and SPRTs between UCI/xboard engines.

It drives engines as processes through python-chess (``chess.engine``), keeps
the games and clocks itself, and writes PGN, result tables and resume state.
It never imports Kestrel's core. Run it with ``python -m tournaments``.
"""

from tournaments.config import EngineConfig, TournamentConfig
from tournaments.timecontrol import TimeControl

__all__ = ["EngineConfig", "TimeControl", "TournamentConfig"]
