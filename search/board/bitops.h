/* Bit tricks behind one portable face.
 *
 * GCC and Clang have builtins for population count and bit scans; MSVC has
 * intrinsics with other names.  Everything else in the core calls these
 * three functions, so a Windows wheel (where Arena runs) needs no other change.
 *
 * Population count: the POPCNT instruction only where the compiler may use it
 * (-march=native or any -m flag that defines __POPCNT__).  Elsewhere, a wheel must
 * run on every x86-64 CPU, so the count is the inline bit-parallel sum below:
 * GCC's builtin would instead call libgcc's __popcountdi2, a function call per
 * count, which a profile of bench showed to be costly.
 */
#ifndef KESTREL_BITOPS_H
#define KESTREL_BITOPS_H

#include <stdint.h>

#include "inline.h"

/* Sum of bits in pairs, nibbles, bytes, then of the eight bytes by one multiplication. */
KESTREL_INLINE int kestrel_popcount_portable(uint64_t b) {
    b = b - ((b >> 1) & 0x5555555555555555ULL);
    b = (b & 0x3333333333333333ULL) + ((b >> 2) & 0x3333333333333333ULL);
    b = (b + (b >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (int)((b * 0x0101010101010101ULL) >> 56);
}

#if defined(_MSC_VER)
#include <intrin.h>
#if defined(_M_X64) || defined(_M_ARM64)
#pragma intrinsic(_BitScanForward64, _BitScanReverse64)
/* Not __popcnt64: MSVC emits the POPCNT instruction for it unconditionally. */
KESTREL_INLINE int kestrel_popcount(uint64_t b) { return kestrel_popcount_portable(b); }
KESTREL_INLINE int kestrel_lsb(uint64_t b) { unsigned long i; _BitScanForward64(&i, b); return (int)i; }
KESTREL_INLINE int kestrel_msb(uint64_t b) { unsigned long i; _BitScanReverse64(&i, b); return (int)i; }
#else
#error "Kestrel needs a 64-bit MSVC target"
#endif
#else
#if defined(__POPCNT__) || defined(__aarch64__)
/* One instruction (ARM64 always has a vector count the builtin uses). */
KESTREL_INLINE int kestrel_popcount(uint64_t b) { return __builtin_popcountll(b); }
#else
KESTREL_INLINE int kestrel_popcount(uint64_t b) { return kestrel_popcount_portable(b); }
#endif
KESTREL_INLINE int kestrel_lsb(uint64_t b) { return __builtin_ctzll(b); }
KESTREL_INLINE int kestrel_msb(uint64_t b) { return 63 - __builtin_clzll(b); }
#endif

#endif
