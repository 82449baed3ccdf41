/* Cache-line aligned blocks for the big tables: the transposition table and the MCTS node pool.
 *
 * malloc hands out large blocks 16 bytes past a page boundary.  A 64-byte table bucket then
 * straddles two cache lines, so every probe misses twice, and so does every other 32-byte
 * tree node.  This over-allocates by one line and rounds the address up; it is portable C
 * (no posix_memalign or _aligned_malloc), and free() of the block malloc gave releases it. */
#ifndef KESTREL_ALIGNED_H
#define KESTREL_ALIGNED_H

#include <stdint.h>
#include <stdlib.h>

#define KESTREL_CACHE_LINE 64

/* `bytes` of zeroed memory starting on a cache line, or NULL; *block receives what to free(). */
static inline void* kestrel_aligned_calloc(size_t bytes, void** block) {
    void* raw = calloc(bytes + KESTREL_CACHE_LINE, 1);
    *block = raw;
    if (raw == NULL)
        return NULL;
    return (void*)(((uintptr_t)raw + KESTREL_CACHE_LINE - 1) & ~(uintptr_t)(KESTREL_CACHE_LINE - 1));
}

#endif
