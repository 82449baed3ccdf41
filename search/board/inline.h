/* KESTREL_INLINE: a function defined in a header, private to each module that includes it.
 *
 * MSVC's C compiler spells `inline` as `__inline` (older versions know no other).  The portable
 * headers (bitops.h, clock.h) take the spelling from here, so a module that includes several
 * gets one definition.
 */
#ifndef KESTREL_INLINE_H
#define KESTREL_INLINE_H

#if defined(_MSC_VER)
#define KESTREL_INLINE static __inline
#else
#define KESTREL_INLINE static inline
#endif

#endif
