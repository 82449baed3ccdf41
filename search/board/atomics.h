/* Atomic operations on plain fields, for a tree that several threads grow at once (MCTS).
 *
 * The node pool is a C array of structs shared by every search thread, so the fields
 * that threads update concurrently (visit counts, value sums, a node's expansion stage,
 * the pool's bump pointer) are touched only through these functions.  GCC and Clang get
 * their __atomic builtins; MSVC gets the Interlocked intrinsics, which are full barriers
 * (stronger than needed, and correct on x64 and ARM64 alike).
 *
 * Orders: statistics use relaxed operations (a selection that reads a count one playout
 * old is still a good selection); publication uses release stores and acquire loads, so
 * that a thread that sees a node as expanded (or proven) also sees its children (or its
 * mate distance).
 */
#ifndef KESTREL_ATOMICS_H
#define KESTREL_ATOMICS_H

#include <stdint.h>
#include <string.h>

#if defined(_MSC_VER)

#include <windows.h>
#include <intrin.h>

static __inline uint8_t kestrel_load_u8_acquire(const uint8_t* p) {
    return (uint8_t)_InterlockedOr8((volatile char*)p, 0);
}
static __inline void kestrel_store_u8_release(uint8_t* p, uint8_t v) {
    _InterlockedExchange8((volatile char*)p, (char)v);
}
static __inline int kestrel_cas_u8(uint8_t* p, uint8_t expected, uint8_t desired) {
    return (uint8_t)_InterlockedCompareExchange8((volatile char*)p, (char)desired, (char)expected) == expected;
}
static __inline uint32_t kestrel_load_u32(const uint32_t* p) {
    return (uint32_t)_InterlockedOr((volatile long*)p, 0);
}
static __inline void kestrel_store_u32(uint32_t* p, uint32_t v) {
    _InterlockedExchange((volatile long*)p, (long)v);
}
static __inline void kestrel_add_u32(uint32_t* p, uint32_t v) {
    _InterlockedExchangeAdd((volatile long*)p, (long)v);
}
static __inline int kestrel_cas_u32(uint32_t* p, uint32_t expected, uint32_t desired) {
    return (uint32_t)_InterlockedCompareExchange((volatile long*)p, (long)desired, (long)expected) == expected;
}
static __inline uint64_t kestrel_load_u64(const uint64_t* p) {
    return (uint64_t)_InterlockedOr64((volatile __int64*)p, 0);
}
static __inline void kestrel_store_u64(uint64_t* p, uint64_t v) {
    _InterlockedExchange64((volatile __int64*)p, (__int64)v);
}
static __inline void kestrel_add_u64(uint64_t* p, uint64_t v) {
    _InterlockedExchangeAdd64((volatile __int64*)p, (__int64)v);
}
static __inline int kestrel_cas_u64(uint64_t* p, uint64_t expected, uint64_t desired) {
    return (uint64_t)_InterlockedCompareExchange64((volatile __int64*)p, (__int64)desired,
                                                   (__int64)expected) == expected;
}
static __inline int kestrel_load_int(const int* p) {
    return (int)_InterlockedOr((volatile long*)p, 0);
}
static __inline int kestrel_cas_int(int* p, int expected, int desired) {
    return (int)_InterlockedCompareExchange((volatile long*)p, (long)desired, (long)expected) == expected;
}
static __inline void kestrel_add_int(int* p, int v) {
    _InterlockedExchangeAdd((volatile long*)p, (long)v);
}
static __inline void kestrel_cpu_relax(void) { YieldProcessor(); }
static __inline void kestrel_yield(void) { SwitchToThread(); }
#define KESTREL_ATOMIC_INLINE __inline

#else

#include <sched.h>

static inline uint8_t kestrel_load_u8_acquire(const uint8_t* p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
static inline void kestrel_store_u8_release(uint8_t* p, uint8_t v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
static inline int kestrel_cas_u8(uint8_t* p, uint8_t expected, uint8_t desired) {
    return __atomic_compare_exchange_n(p, &expected, desired, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}
static inline uint32_t kestrel_load_u32(const uint32_t* p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
static inline void kestrel_store_u32(uint32_t* p, uint32_t v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }
static inline void kestrel_add_u32(uint32_t* p, uint32_t v) { __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }
static inline int kestrel_cas_u32(uint32_t* p, uint32_t expected, uint32_t desired) {
    return __atomic_compare_exchange_n(p, &expected, desired, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}
static inline uint64_t kestrel_load_u64(const uint64_t* p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
static inline void kestrel_store_u64(uint64_t* p, uint64_t v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }
static inline void kestrel_add_u64(uint64_t* p, uint64_t v) { __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }
static inline int kestrel_cas_u64(uint64_t* p, uint64_t expected, uint64_t desired) {
    return __atomic_compare_exchange_n(p, &expected, desired, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}
static inline int kestrel_load_int(const int* p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
static inline int kestrel_cas_int(int* p, int expected, int desired) {
    return __atomic_compare_exchange_n(p, &expected, desired, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}
static inline void kestrel_add_int(int* p, int v) { __atomic_fetch_add(p, v, __ATOMIC_ACQ_REL); }
#if defined(__x86_64__) || defined(__i386__)
static inline void kestrel_cpu_relax(void) { __builtin_ia32_pause(); }
#elif defined(__aarch64__)
static inline void kestrel_cpu_relax(void) { __asm__ __volatile__("yield"); }
#else
static inline void kestrel_cpu_relax(void) { }
#endif
static inline void kestrel_yield(void) { sched_yield(); }
#define KESTREL_ATOMIC_INLINE inline

#endif

/* Doubles have no portable fetch_add: their bits go through a 64-bit compare-and-swap.
 * memcpy is how C reinterprets bits without breaking aliasing rules. */
static KESTREL_ATOMIC_INLINE double kestrel_load_f64(const double* p) {
    uint64_t bits = kestrel_load_u64((const uint64_t*)p);
    double value;
    memcpy(&value, &bits, sizeof(value));
    return value;
}

static KESTREL_ATOMIC_INLINE void kestrel_add_f64(double* p, double v) {
    uint64_t old_bits, new_bits;
    double old_value, new_value;
    do {
        old_bits = kestrel_load_u64((const uint64_t*)p);
        memcpy(&old_value, &old_bits, sizeof(old_value));
        new_value = old_value + v;
        memcpy(&new_bits, &new_value, sizeof(new_bits));
    } while (!kestrel_cas_u64((uint64_t*)p, old_bits, new_bits));
}

/* The larger of *p and v, kept in *p (the deepest selection of any thread). */
static KESTREL_ATOMIC_INLINE void kestrel_max_int(int* p, int v) {
    int old;
    do {
        old = kestrel_load_int(p);
        if (old >= v)
            return;
    } while (!kestrel_cas_int(p, old, v));
}

#endif
