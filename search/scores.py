"""Where mates and centipawns meet on one line: a mate as centipawns.

A mate in n is worth ``MATE_CP - n`` (being mated in n, ``-MATE_CP + n``; python-chess's
``Score.score(mate_score=MATE_CP)`` gives the same), far beyond any evaluation, so a mate always
outranks and outweighs a centipawn score.  The strength levels compare MultiPV lines so, and the
tournament runner's adjudication and the data generator read scores so.

Pure Python that imports nothing: the one module of the engine's packages that the tournament
runner may import (tests/test_layers.py), so that the number is written once.
"""

from __future__ import annotations

MATE_CP = 100_000
