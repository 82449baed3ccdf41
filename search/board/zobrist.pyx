"""Zobrist key tables, filled from a fixed-seed generator so keys are stable across runs."""

from libc.stdint cimport uint64_t


cdef uint64_t splitmix_state = 0x4B65737472656C21ULL  # "Kestrel!"

cdef uint64_t splitmix64() noexcept nogil:
    global splitmix_state
    splitmix_state += 0x9E3779B97F4A7C15ULL
    cdef uint64_t z = splitmix_state
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef void init_zobrist() noexcept nogil:
    global ZOBRIST_SIDE
    cdef int p, s
    for p in range(12):
        for s in range(64):
            ZOBRIST_PIECE[p][s] = splitmix64()
    for s in range(16):
        ZOBRIST_CASTLING[s] = splitmix64()
    for s in range(8):
        ZOBRIST_EP_FILE[s] = splitmix64()
    ZOBRIST_SIDE = splitmix64()


init_zobrist()
