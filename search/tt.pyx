"""Transposition table storage, replacement and occupancy."""

from libc.stdint cimport uint8_t, uint32_t, int16_t, uint64_t
from libc.stdlib cimport calloc, free
from libc.string cimport memset
from search.board.types cimport Move, MOVE_NONE


cdef int tt_resize(TranspositionTable* tt, uint64_t megabytes) noexcept nogil:
    """Allocate about `megabytes` of buckets (rounded down to a power of two); clears it."""
    cdef uint64_t bytes_wanted = megabytes * 1024 * 1024
    cdef uint64_t bucket_bytes = sizeof(TTEntry) * TT_BUCKET_SIZE
    cdef uint64_t buckets = 1
    cdef TTEntry* entries
    while buckets * 2 * bucket_bytes <= bytes_wanted:
        buckets *= 2
    entries = <TTEntry*>calloc(buckets * TT_BUCKET_SIZE, sizeof(TTEntry))
    if entries == NULL:
        return -1
    free(tt.entries)
    tt.entries = entries
    tt.bucket_count = buckets
    tt.generation = 0
    return 0


cdef void tt_free(TranspositionTable* tt) noexcept nogil:
    free(tt.entries)
    tt.entries = NULL
    tt.bucket_count = 0


cdef void tt_clear(TranspositionTable* tt) noexcept nogil:
    if tt.entries != NULL:
        memset(tt.entries, 0, tt.bucket_count * TT_BUCKET_SIZE * sizeof(TTEntry))
    tt.generation = 0


cdef void tt_new_search(TranspositionTable* tt) noexcept nogil:
    tt.generation = (tt.generation + 1) & 63


cdef inline TTEntry* bucket_of(const TranspositionTable* tt, uint64_t key) noexcept nogil:
    return &tt.entries[(key & (tt.bucket_count - 1)) * TT_BUCKET_SIZE]


cdef bint tt_probe(const TranspositionTable* tt, uint64_t key, TTEntry* found) noexcept nogil:
    cdef TTEntry* bucket = bucket_of(tt, key)
    cdef uint32_t key32 = <uint32_t>(key >> 32)
    cdef int i
    for i in range(TT_BUCKET_SIZE):
        if bucket[i].key32 == key32 and (bucket[i].bound_age & 3) != BOUND_NONE:
            found[0] = bucket[i]
            return True
    return False


cdef inline int entry_worth(const TTEntry* e, uint8_t generation) noexcept nogil:
    """Replacement value: deep entries of the current search are kept longest."""
    cdef int age = (generation - (e.bound_age >> 2)) & 63
    return e.depth - 8 * age


cdef void tt_store(TranspositionTable* tt, uint64_t key, int depth, int score, int bound,
                   Move move, int static_eval) noexcept nogil:
    cdef TTEntry* bucket = bucket_of(tt, key)
    cdef uint32_t key32 = <uint32_t>(key >> 32)
    cdef TTEntry* target = &bucket[0]
    cdef int i
    for i in range(TT_BUCKET_SIZE):
        if bucket[i].key32 == key32 or (bucket[i].bound_age & 3) == BOUND_NONE:
            target = &bucket[i]
            break
        if entry_worth(&bucket[i], tt.generation) < entry_worth(target, tt.generation):
            target = &bucket[i]
    # Same position, shallower result without a bound worth keeping: keep the old move.
    if target.key32 == key32 and move == MOVE_NONE:
        move = target.move
    if (target.key32 == key32 and bound != BOUND_EXACT and depth + 2 < target.depth
            and (target.bound_age >> 2) == tt.generation):
        return
    if depth < 0:
        depth = 0
    if depth > 255:
        depth = 255
    target.key32 = key32
    target.move = move
    target.score = <int16_t>score
    target.static_eval = <int16_t>static_eval
    target.depth = <uint8_t>depth
    target.bound_age = <uint8_t>(bound | (tt.generation << 2))


cdef int tt_hashfull(const TranspositionTable* tt) noexcept nogil:
    cdef int used = 0, i
    cdef uint64_t n = tt.bucket_count * TT_BUCKET_SIZE
    if n > 1000:
        n = 1000
    for i in range(n):
        if (tt.entries[i].bound_age & 3) != BOUND_NONE and (tt.entries[i].bound_age >> 2) == tt.generation:
            used += 1
    return <int>(used * 1000 // n)
