/* A hint to the memory system: the cache line at `address` will be read soon.
 *
 * The transposition table is far larger than the caches, so nearly every probe
 * misses them; asking for the bucket as soon as a move has made the key known
 * lets the load overlap the work before the probe.  A hint only: it changes no
 * result, and compilers without one get nothing.
 */
#ifndef KESTREL_PREFETCH_H
#define KESTREL_PREFETCH_H

#if defined(_MSC_VER)
#include <xmmintrin.h>
#define kestrel_prefetch(address) _mm_prefetch((const char*)(address), _MM_HINT_T0)
#elif defined(__GNUC__) || defined(__clang__)
#define kestrel_prefetch(address) __builtin_prefetch((address), 0, 3)
#else
#define kestrel_prefetch(address) ((void)(address))
#endif

#endif
