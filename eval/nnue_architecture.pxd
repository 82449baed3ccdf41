# The net's architecture: its inputs and the bounds of its sizes and constants, in one place.
#
# Kestrel's net is a perspective network: 768 sparse inputs seen from each side, a hidden layer
# of `hidden` units per side (one weight matrix shared by both sides), SCReLU, and an output layer
# chosen from 1..8 by the number of pieces on the board (output buckets).  A net's feature set says
# whether a perspective also sees the board mirrored left-right when its own king is on files e-h.
# This header says what an input is, which output bucket a position uses, and which nets the engine
# accepts.  Its readers:
#   eval/nnue.pyx             the engine's inference (accumulators, output layer)
#   tools/nnue_kernels.pyx    the trainer's forward and backward passes
#   eval/nnue_architecture.pyx  the same values for Python: the file format (eval/nnue_file.py),
#                             the trainer, tests; and a position's active inputs
# A change here is a new architecture: nets made for the old one no longer fit, and the file
# format (eval/nnue_file.py) needs a new version.

cdef enum:
    NNUE_INPUTS = 768             # 2 colours (own, other) x 6 piece types x 64 squares
    NNUE_MAX_ACTIVE = 32          # active inputs of one perspective: one per piece on the board
    NNUE_MIN_HIDDEN = 16
    NNUE_MAX_HIDDEN = 1024
    NNUE_HIDDEN_STEP = 16         # the width is a multiple of this: vector loops need no remainder
    NNUE_MAX_OUTPUT_BUCKETS = 8   # output layers per net, chosen by piece count (1: one for all)
    # The quantisation constants a net may carry (its file header's QA, QB and scale).
    NNUE_MAX_QA = 32767           # the activation's ceiling is an int16
    NNUE_MAX_QB = 32767           # the output weights' scale: an int16 as well
    NNUE_MAX_SCALE = 1 << 21      # raw * scale stays inside int64 for every accepted net
    # Feature sets: how a perspective's inputs are oriented.
    NNUE_FEATURES_PLAIN = 0       # as the board stands (Black's view flipped vertically)
    NNUE_FEATURES_KING_MIRRORED = 1   # and mirrored left-right while the perspective's own king is on files e-h
    NNUE_FEATURE_SETS = 2


cdef inline int nnue_feature_index(int perspective, int colour, int piece_type, int square) noexcept nogil:
    """The input that `perspective` (0 White, 1 Black) sees for a piece of `colour` (0 White,
    1 Black) and `piece_type` (pawn 0, knight 1, bishop 2, rook 3, queen 4, king 5) on `square`
    (a1 0, b1 1 ... h8 63): its own pieces in the first half, and Black sees the board flipped
    vertically, so that each side sees its own pieces from its own side."""
    return ((0 if colour == perspective else NNUE_INPUTS // 2) + 64 * piece_type
            + (square if perspective == 0 else square ^ 56))


cdef inline int nnue_file_flip(int feature_set, int own_king_square) noexcept nogil:
    """What a perspective XORs into each of its inputs (nnue_feature_index): 7, which mirrors the
    file (an input's low three bits are its square's file), when the net mirrors by the king and
    this perspective's own king stands on files e-h; otherwise 0.  So a mirroring net sees every
    position with its own king on files a-d, and one set of weights serves both wings; a king that
    crosses between files d and e changes every input of its perspective, which is then computed
    afresh."""
    if feature_set == NNUE_FEATURES_KING_MIRRORED and (own_king_square & 7) >= 4:
        return 7
    return 0


cdef inline int nnue_output_bucket(int pieces, int buckets) noexcept nogil:
    """The output layer (0 .. buckets - 1) of a position with `pieces` pieces on the board, kings
    included: the counts 2..32 split into `buckets` equal runs, fewest pieces first.  With 8 buckets
    that is (pieces - 2) / 4: 2-5 pieces use the first, 30-32 the last.  The endgame and the
    middlegame weigh the same hidden features differently, and a layer of their own costs one
    row of output weights each."""
    if pieces <= 2:
        return 0
    if pieces >= 32:
        return buckets - 1
    return (pieces - 2) * buckets // 31
