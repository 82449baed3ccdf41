# The weighted evaluation: what the searchers call at every leaf.
#
# evaluate() scores a position from scratch (no incremental state) in centipawns from the
# side to move's view; evaluate_terms() fills the same sum term by term, for the breakdown.

from search.board.types cimport Move
from search.board.board cimport Board

cdef enum:
    # Terms of the breakdown; their (mg, eg) parts are kept from White's view.
    TERM_MATERIAL = 0
    TERM_PSQT = 1
    TERM_MOBILITY = 2
    TERM_PAWNS = 3
    TERM_KING_SAFETY = 4
    TERM_BISHOP_PAIR = 5
    TERM_ROOKS = 6
    TERM_TEMPO = 7
    TERM_THREATS = 8        # pieces attacked by pawns or lesser pieces, hanging pieces
    TERM_OUTPOSTS = 9       # knights and bishops on outposts, rooks on the seventh
    TERM_COUNT = 10

cdef enum:
    PHASE_MAX = 24          # knight 1, bishop 1, rook 2, queen 4: the starting material
    EVAL_LIMIT = 20000      # scores stay well clear of mate scores


cdef struct EvalTerms:
    int mg[TERM_COUNT]
    int eg[TERM_COUNT]
    int phase               # 0 (bare endgame) .. PHASE_MAX (full middlegame)
    int total               # tapered, clamped, from the side to move's view: evaluate()


cdef void evaluate_terms(const Board* b, EvalTerms* terms) noexcept nogil
cdef int evaluate(const Board* b) noexcept nogil

# What move `m` changes in the moving piece's piece-square value (tapered by the game phase,
# centipawns, for the side to move): a positional hint for MCTS's move priors, no search.
cdef int psqt_move_gain(const Board* b, Move m) noexcept nogil
