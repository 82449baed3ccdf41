# The learned evaluation (NNUE): a perspective network 768 -> hidden (per side) -> 1, SCReLU, int16,
# with one output layer per bucket of piece counts, its inputs optionally mirrored by each side's king.
# Its inputs and the bounds of its sizes are eval/nnue_architecture.pxd's.
#
# The network's weights live in C memory owned by a `Network` object and are only read, by every
# thread at once.  Each thread keeps its own AccumulatorStack: the first layer's output for the
# positions of its search path, brought up to date lazily from the board's records of what each
# move changed (UndoRecord.changes).  The integer formula is exact and defined in nnue.pyx.

from libc.stdint cimport int16_t, int32_t, uint8_t, uint64_t
from search.board.board cimport Board
from eval.nnue_architecture cimport NNUE_MAX_OUTPUT_BUCKETS

cdef enum:
    ACCUMULATOR_SLOTS = 128       # a power of two, at least MAX_PLY: slots are indexed by game ply modulo this


cdef struct NetworkWeights:
    int hidden                    # N: accumulator width per side
    int qa                        # the clipped activation's ceiling (the trainer writes 255)
    int qb                        # the output weights' scale (the trainer picks it per net)
    int scale                     # centipawns per unit of the output (the trainer writes 400)
    int buckets                   # output layers, chosen by piece count (nnue_output_bucket)
    int feature_set               # NNUE_FEATURES_PLAIN, or _KING_MIRRORED: inputs mirrored by the king's wing
    int32_t output_bias[NNUE_MAX_OUTPUT_BUCKETS]
    # > 0: every |output weight| * qa fits an int16, so the output layer runs in 16-bit products
    # summed exactly in int32 over chunks of this many inputs; 0: one 64-bit product per input.
    int output_chunk
    uint64_t serial               # unique to this network: accumulators remember which net made them
    const int16_t* feature_weights    # NNUE_INPUTS x hidden, feature-major (one row per input)
    const int16_t* feature_bias       # hidden
    const int16_t* output_weights     # buckets x 2 x hidden: per bucket the side to move's half first


cdef struct AccumulatorStack:
    # One thread's accumulators: per slot both perspectives (White's view, then Black's), valid
    # for the position whose Zobrist key it keeps.  A slot is found by the position's game ply,
    # and trusted only if its key matches, so no search has to tell the stack about its moves.
    uint64_t serial               # the network the slots were computed with (0: none)
    int hidden                    # the width the slots were allocated for (0: none)
    int16_t* values               # ACCUMULATOR_SLOTS x 2 x hidden, on a cache line
    void* block                   # what to free
    uint64_t keys[ACCUMULATOR_SLOTS]
    uint8_t computed[ACCUMULATOR_SLOTS]
    uint64_t refreshes            # full computations (for tests and statistics)
    uint64_t updates              # positions reached incrementally from the one before


# The evaluation in centipawns from the side to move's view, accumulators brought up to date first.
cdef int nnue_evaluate(AccumulatorStack* stack, const NetworkWeights* net, const Board* b) noexcept nogil
# The accumulators of `b` (2 x hidden, White's view first), computed incrementally where possible.
cdef const int16_t* current_accumulators(AccumulatorStack* stack, const NetworkWeights* net,
                                         const Board* b) noexcept nogil
# Both perspectives from scratch into `out` (2 x hidden).
cdef void refresh_accumulators(const NetworkWeights* net, const Board* b, int16_t* out) noexcept nogil
# The output layer on accumulators `acc` of the position `b`: its side to move picks the halves'
# order, its piece count the output bucket.
cdef int network_output(const NetworkWeights* net, const int16_t* acc, const Board* b) noexcept nogil

# The loops over hidden units (eval/nnue_simd.h): `simd` true, the fastest this CPU runs (AVX2 on
# x86-64 CPUs that have it, chosen when eval.nnue is imported); false, the portable C, which gives
# the same numbers (tests compare the two).  Not while a search runs.  Returns 1 for AVX2, 0 portable.
cdef int nnue_select_kernels(bint simd) noexcept nogil

# Size the stack for `net` and forget slots another network made; -1 when memory is short.
cdef int stack_prepare(AccumulatorStack* stack, const NetworkWeights* net) noexcept nogil
cdef void stack_free(AccumulatorStack* stack) noexcept nogil


cdef class Network:
    cdef NetworkWeights weights
    cdef void* block              # the weights' memory, freed with the object
