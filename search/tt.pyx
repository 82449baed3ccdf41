"""Transposition table storage, replacement and occupancy."""

from libc.stdint cimport uint8_t, uint16_t, int16_t, uint64_t
from libc.stdlib cimport free
from libc.string cimport memset
from search.board.types cimport Move, MOVE_NONE

cdef extern from "aligned.h" nogil:
    void* aligned_calloc "kestrel_aligned_calloc"(size_t nbytes, void** block)


cdef int tt_resize(TranspositionTable* tt, uint64_t megabytes) noexcept nogil:
    """Allocate about `megabytes` of buckets (rounded down to a power of two); clears it."""
    cdef uint64_t bytes_wanted = megabytes * 1024 * 1024
    cdef uint64_t bucket_bytes = sizeof(TTSlot) * TT_BUCKET_SIZE
    cdef uint64_t buckets = 1
    cdef TTSlot* entries
    cdef void* block
    while buckets * 2 * bucket_bytes <= bytes_wanted:
        buckets *= 2
    entries = <TTSlot*>aligned_calloc(buckets * bucket_bytes, &block)
    if entries == NULL:
        return -1
    free(tt.block)
    tt.entries = entries
    tt.block = block
    tt.bucket_count = buckets
    tt.generation = 0
    return 0


cdef void tt_free(TranspositionTable* tt) noexcept nogil:
    free(tt.block)
    tt.block = NULL
    tt.entries = NULL
    tt.bucket_count = 0


cdef void tt_clear(TranspositionTable* tt) noexcept nogil:
    if tt.entries != NULL:
        memset(tt.entries, 0, tt.bucket_count * TT_BUCKET_SIZE * sizeof(TTSlot))
    tt.generation = 0


cdef void tt_new_search(TranspositionTable* tt) noexcept nogil:
    tt.generation = (tt.generation + 1) & 63


cdef inline uint64_t pack(Move move, int score, int static_eval, int depth, int bound_age) noexcept nogil:
    return (<uint64_t>move | (<uint64_t><uint16_t><int16_t>score << 16)
            | (<uint64_t><uint16_t><int16_t>static_eval << 32)
            | (<uint64_t><uint8_t>depth << 48) | (<uint64_t><uint8_t>bound_age << 56))


cdef inline uint8_t bound_age_of(uint64_t data) noexcept nogil:
    return <uint8_t>(data >> 56)


cdef inline int depth_of(uint64_t data) noexcept nogil:
    return <uint8_t>(data >> 48)


cdef inline void unpack(uint64_t data, TTEntry* entry) noexcept nogil:
    entry.move = <Move>(data & 0xFFFF)
    entry.score = <int16_t><uint16_t>(data >> 16)
    entry.static_eval = <int16_t><uint16_t>(data >> 32)
    entry.depth = <uint8_t>(data >> 48)
    entry.bound_age = <uint8_t>(data >> 56)


cdef bint tt_probe(const TranspositionTable* tt, uint64_t key, TTEntry* found) noexcept nogil:
    cdef TTSlot* bucket = bucket_of(tt, key)
    cdef uint64_t data
    cdef int i
    for i in range(TT_BUCKET_SIZE):
        # Read each word once: another thread may be writing this slot right now.
        data = (<volatile uint64_t*>&bucket[i].data)[0]
        if ((<volatile uint64_t*>&bucket[i].check)[0] ^ data) == key and (bound_age_of(data) & 3) != BOUND_NONE:
            unpack(data, found)
            return True
    return False


cdef inline int entry_worth(const TranspositionTable* tt, uint64_t data) noexcept nogil:
    """Replacement value: deep entries of the current search are kept longest."""
    cdef int age = (tt.generation - (bound_age_of(data) >> 2)) & 63
    return depth_of(data) - 8 * age


cdef void tt_store(TranspositionTable* tt, uint64_t key, int depth, int score, int bound,
                   Move move, int static_eval) noexcept nogil:
    cdef TTSlot* bucket = bucket_of(tt, key)
    cdef TTSlot* target = &bucket[0]
    cdef uint64_t data, target_data = bucket[0].data
    cdef bint same_position = False
    cdef int i
    for i in range(TT_BUCKET_SIZE):
        data = bucket[i].data
        if (bucket[i].check ^ data) == key or (bound_age_of(data) & 3) == BOUND_NONE:
            target = &bucket[i]
            target_data = data
            same_position = (bucket[i].check ^ data) == key
            break
        if entry_worth(tt, data) < entry_worth(tt, target_data):
            target = &bucket[i]
            target_data = data
    # Same position, shallower result without a bound worth keeping: keep the old move.
    if same_position and move == MOVE_NONE:
        move = <Move>(target_data & 0xFFFF)
    if (same_position and bound != BOUND_EXACT and depth + 2 < depth_of(target_data)
            and (bound_age_of(target_data) >> 2) == tt.generation):
        return
    if depth < 0:
        depth = 0
    if depth > 255:
        depth = 255
    data = pack(move, score, static_eval, depth, bound | (tt.generation << 2))
    target.data = data
    target.check = key ^ data


cdef int tt_hashfull(const TranspositionTable* tt) noexcept nogil:
    cdef int used = 0
    cdef uint64_t i, n = tt.bucket_count * TT_BUCKET_SIZE
    cdef uint8_t bound_age
    if n > 1000:
        n = 1000
    for i in range(n):
        bound_age = bound_age_of(tt.entries[i].data)
        if (bound_age & 3) != BOUND_NONE and (bound_age >> 2) == tt.generation:
            used += 1
    return <int>(used * 1000 // n)
