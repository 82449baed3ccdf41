# The prior of each move at a new MCTS node: what Kestrel's move ordering knows, as probabilities.
#
# Each move is described by a few features (move_features): the transposition table's move
# (the best move of the searched leaf that valued this node), the static exchange of captures
# and of quiet moves, promotions, checks, the history of quiet moves, a threatened piece that
# escapes, a threatened piece the move leaves threatened, the piece-square gain, pawn and piece
# threats, recaptures and castling.  Its logit is the features weighted by one table of
# PRIOR_FEATURE_COUNT weights, and a softmax with a temperature turns the logits into
# probabilities (a high temperature flattens them towards uniform).
#
# Two tables exist: HAND_PRIOR_WEIGHTS, set by hand, and FITTED_PRIOR_WEIGHTS,
# fitted by `python -m tools.policy_fit` to predict the move of Kestrel's alpha-beta search
# (docs/mcts.md, "Priors").  The MCTS searcher picks one (its `fitted_priors` switch).

from search.board.types cimport Bitboard, Move
from search.board.board cimport Board
from search.state cimport SearchState

cdef enum:
    # A move's features, from the side to move's view; exchange values are in pawns.
    FEATURE_TT_MOVE = 0         # 1: the table's move here
    FEATURE_CAPTURE = 1         # 1: a capture (or en passant) whose exchange does not lose material
    FEATURE_CAPTURE_GAIN = 2    # that exchange's gain
    FEATURE_CAPTURE_LOSS = 3    # a losing capture's exchange (negative, at least -6)
    FEATURE_QUIET_LOSS = 4      # a quiet move's exchange on its square (negative, at least -6): it hangs a piece
    FEATURE_QUEEN_PROMOTION = 5
    FEATURE_UNDER_PROMOTION = 6
    FEATURE_CHECK = 7           # 1: the move gives check
    FEATURE_HISTORY = 8         # a quiet move's from-to history, -1..1 (0 outside a search)
    FEATURE_ESCAPE = 9          # a threatened piece's value when it moves to a square where the exchange holds
    FEATURE_PSQT = 10           # the moving piece's piece-square gain (eval's tables, tapered)
    FEATURE_PAWN_THREAT = 11    # 1: a pawn push, safe, that attacks a knight, bishop, rook or queen
    FEATURE_CASTLING = 12       # 1: castling
    FEATURE_RECAPTURE = 13      # 1: a capture on the square where the last move captured
    FEATURE_PIECE_THREAT = 14   # a piece moved where the exchange holds: the greater pieces it attacks (at most 2)
    FEATURE_IGNORED_THREAT = 15  # minus the greatest threat_value() of another threatened piece that stays threatened
    PRIOR_FEATURE_COUNT = 16

cdef double HAND_PRIOR_WEIGHTS[PRIOR_FEATURE_COUNT]
cdef double FITTED_PRIOR_WEIGHTS[PRIOR_FEATURE_COUNT]

# One of the two tables: the fitted one (the `fitted_priors` switch) or the hand-set one.
cdef const double* prior_weight_table(bint fitted) noexcept nogil

# The features of move `m` at s.board into features[:PRIOR_FEATURE_COUNT] (`tt_move`: the
# table's move there, or MOVE_NONE; `threatened`: the side to move's pieces that stand to lose
# material where they are, from threatened_pieces()).  With a weight table, a costly feature
# it weighs 0 is left 0 uncomputed; with NULL, every feature is computed.
cdef void move_features(SearchState* s, Move m, Move tt_move, Bitboard threatened,
                        const double* weights, double* features) noexcept nogil

# The table's move at s.board, or MOVE_NONE when the table has none.
cdef Move table_move(SearchState* s) noexcept nogil

# What the opponent of `colour` wins by taking its piece on `sq` (centipawns, SEE_VALUE): the
# piece's value when it is attacked and not defended, the piece's value less the least attacker's
# when a lesser piece attacks it, else 0.  A rough measure: no exchange is played out.
cdef int threat_value(Board* b, int sq, int colour) noexcept nogil

# The side to move's pieces (not the king) whose threat_value() is above 0.
cdef Bitboard threatened_pieces(SearchState* s) noexcept nogil

# priors[i] for moves[i] at s.board, summing to 1; `temperature` > 0; `weights`: one of the tables.
cdef void move_priors(SearchState* s, const Move* moves, int count, double temperature,
                      const double* weights, double* priors) noexcept nogil
