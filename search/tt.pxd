# The transposition table: a C array of buckets keyed by the Zobrist key.
#
# Each entry keeps the best move, score, static evaluation, depth, bound and the
# search generation (age) that wrote it.  Mate scores are stored relative to the
# node, not the root, so they stay right when found again at another ply.
#
# Several search threads share one table without locks: a slot is two 64-bit words,
# the packed entry and the key XOR the packed entry.  A slot torn by two threads
# writing at once no longer matches its key, so a probe never returns a mixed entry.

from libc.stdint cimport uint8_t, uint16_t, uint32_t, int16_t, uint64_t
from search.board.types cimport Move, MATE_IN_MAX_PLY

cdef enum:
    BOUND_NONE = 0
    BOUND_UPPER = 1      # the true value is at most the score
    BOUND_LOWER = 2      # the true value is at least the score
    BOUND_EXACT = 3
    TT_BUCKET_SIZE = 4

cdef struct TTEntry:
    # What a probe returns (unpacked from a TTSlot).
    Move move
    int16_t score
    int16_t static_eval
    uint8_t depth
    uint8_t bound_age    # bound in the low 2 bits, generation in the high 6

cdef struct TTSlot:
    uint64_t check       # the key XOR data
    uint64_t data        # move | score << 16 | static_eval << 32 | depth << 48 | bound_age << 56

cdef struct TranspositionTable:
    TTSlot* entries          # on a cache line, so a bucket is one line
    void* block              # what was allocated, to free
    uint64_t bucket_count    # a power of two
    uint8_t generation

cdef int tt_resize(TranspositionTable* tt, uint64_t megabytes) noexcept nogil   # 0 on success
cdef void tt_free(TranspositionTable* tt) noexcept nogil
cdef void tt_clear(TranspositionTable* tt) noexcept nogil
cdef void tt_new_search(TranspositionTable* tt) noexcept nogil
cdef bint tt_probe(const TranspositionTable* tt, uint64_t key, TTEntry* found) noexcept nogil
cdef void tt_store(TranspositionTable* tt, uint64_t key, int depth, int score, int bound,
                   Move move, int static_eval) noexcept nogil
cdef int tt_hashfull(const TranspositionTable* tt) noexcept nogil   # per mille, from a sample

cdef extern from "prefetch.h" nogil:
    void kestrel_prefetch(const void* address)

cdef inline TTSlot* bucket_of(const TranspositionTable* tt, uint64_t key) noexcept nogil:
    """The TT_BUCKET_SIZE slots where `key` may be stored."""
    return &tt.entries[(key & (tt.bucket_count - 1)) * TT_BUCKET_SIZE]

cdef inline void tt_prefetch(const TranspositionTable* tt, uint64_t key) noexcept nogil:
    """Start loading the bucket of `key` (call it as soon as the key is known; a hint only)."""
    kestrel_prefetch(bucket_of(tt, key))

cdef inline int score_to_tt(int score, int ply) noexcept nogil:
    if score >= MATE_IN_MAX_PLY:
        return score + ply
    if score <= -MATE_IN_MAX_PLY:
        return score - ply
    return score

cdef inline int score_from_tt(int score, int ply) noexcept nogil:
    if score >= MATE_IN_MAX_PLY:
        return score - ply
    if score <= -MATE_IN_MAX_PLY:
        return score + ply
    return score
