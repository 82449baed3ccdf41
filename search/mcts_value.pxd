# Scores as win probabilities, and back: how MCTS reads a leaf's centipawns.
#
# A tree of averages needs values on one bounded scale, the expected result of the game
# (win 1, draw 1/2, loss 0).  Two curves turn a score into it:
#   VALUE_MODEL_LOGISTIC  the Elo curve, 1 / (1 + 10^(-cp / 400)), the same at any material;
#   VALUE_MODEL_WDL       win + draw / 2 of the WDL model fitted to Kestrel's own games
#                         (search/wdl.py, docs/play.md): steeper with much material on the
#                         board (+100 cp is about 0.72 at the start, 0.62 in a rook endgame).

from search.board.board cimport Board

cdef enum:
    VALUE_MODEL_LOGISTIC = 0
    VALUE_MODEL_WDL = 1

# Both sides' material in pawns (search/board/material.pxd), the WDL model's input.
cdef int board_material(const Board* b) noexcept nogil

# The expected result for the side whose score `cp` is (a non-mate score).
cdef double score_to_probability(int cp, int model, int material) noexcept nogil

# The inverse, for reports: the score whose expected result is `q` (capped short of mate scores).
cdef int probability_to_score(double q, int model, int material) noexcept nogil

# The logistic curve alone (random playouts end on it).
cdef double cp_to_probability(int cp) noexcept nogil
cdef int probability_to_cp(double q) noexcept nogil
