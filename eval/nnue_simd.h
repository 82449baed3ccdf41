/* The net's two hot loops, in portable C and in AVX2, with the choice between them made once.
 *
 * The loops (their integer formula is eval/nnue.pyx's):
 *   kestrel_nnue_rows    dst = src + the rows added - the rows subtracted, in int16 lanes that
 *                        wrap: a move's accumulator update (2 to 4 rows), or a refresh (the
 *                        feature bias plus one row per piece).
 *   kestrel_nnue_screlu  sum of clamp(acc[j], 0, qa)^2 * w[j] for a net whose |qa * w| fits an
 *                        int16: v * w in 16 bits, times v summed in 32 bits over chunks of
 *                        `chunk` inputs, chunks summed in 64 bits (the network checked the bounds).
 *
 * Both forms compute the same integers, so they give the same evaluations bit for bit: int16
 * sums wrap the same way in any order, and a chunk's 32-bit sum is exact in any order
 * (vpmaddwd's pairs included, since every partial sum is bounded by the chunk's bound).
 *
 * Which form runs:
 *   - a build for an AVX2 CPU (KESTREL_NATIVE=1 on one, so __AVX2__): the AVX2 kernels, no CPUID;
 *   - a portable build with GCC or Clang on x86-64 (the wheels): the AVX2 kernels are compiled
 *     function by function (target attribute) and used where CPUID says the CPU and the OS
 *     have AVX2, the portable loops elsewhere;
 *   - any other target (ARM64, MSVC): the portable loops, which the compiler vectorises itself
 *     (NEON on ARM64, SSE2 under MSVC).
 * The choice is a global read by every thread and written only by kestrel_nnue_select_kernels,
 * which eval/nnue.pyx calls when it is imported (and tests, to compare the two forms).
 * Only eval/nnue.pyx includes this header: each includer would get its own copy of the switch.
 */
#ifndef KESTREL_NNUE_SIMD_H
#define KESTREL_NNUE_SIMD_H

#include <stdint.h>

#if defined(_MSC_VER)
#define KESTREL_NNUE_INLINE static __inline
#else
#define KESTREL_NNUE_INLINE static inline
#endif

#if defined(__AVX2__)
#define KESTREL_NNUE_AVX2 1
#define KESTREL_NNUE_AVX2_TARGET
#include <immintrin.h>
#elif (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)     /* GCC and Clang */
#define KESTREL_NNUE_AVX2 1
#define KESTREL_NNUE_AVX2_RUNTIME 1
#define KESTREL_NNUE_AVX2_TARGET __attribute__((target("avx2")))
#include <immintrin.h>
#include <cpuid.h>
#else
#define KESTREL_NNUE_AVX2 0
#endif

/* The kernels in use: 0 the portable loops, 1 AVX2. */
enum { KESTREL_NNUE_KERNELS_PORTABLE = 0, KESTREL_NNUE_KERNELS_AVX2 = 1 };
static int kestrel_nnue_kernels = KESTREL_NNUE_KERNELS_PORTABLE;

/* ------------------------------------------------------------------ the portable loops */

/* The usual moves get one fused pass (a quiet move 1 + 1 rows, a capture 1 + 2, castling 2 + 2),
 * anything else a pass per row; gcc -O3 makes each pass paddw/psubw over 8 lanes with SSE2.
 * The rows are read into locals first: the build has -fno-strict-aliasing, so a store to dst
 * could change adds[] as far as the compiler knows, and a loop that read adds[r] in its body
 * would not be vectorised at all. */
static void kestrel_nnue_rows_portable(int16_t* dst, const int16_t* src, const int16_t* const* adds,
                                       int add_count, const int16_t* const* subs, int sub_count, int n) {
    int j, r;
    if (add_count == 1 && sub_count == 1) {
        const int16_t *a0 = adds[0], *s0 = subs[0];
        for (j = 0; j < n; j++) dst[j] = (int16_t)(src[j] + a0[j] - s0[j]);
        return;
    }
    if (add_count == 1 && sub_count == 2) {
        const int16_t *a0 = adds[0], *s0 = subs[0], *s1 = subs[1];
        for (j = 0; j < n; j++) dst[j] = (int16_t)(src[j] + a0[j] - s0[j] - s1[j]);
        return;
    }
    if (add_count == 2 && sub_count == 2) {
        const int16_t *a0 = adds[0], *a1 = adds[1], *s0 = subs[0], *s1 = subs[1];
        for (j = 0; j < n; j++) dst[j] = (int16_t)(src[j] + a0[j] + a1[j] - s0[j] - s1[j]);
        return;
    }
    for (j = 0; j < n; j++) dst[j] = src[j];
    for (r = 0; r < add_count; r++) {
        const int16_t* row = adds[r];
        for (j = 0; j < n; j++) dst[j] = (int16_t)(dst[j] + row[j]);
    }
    for (r = 0; r < sub_count; r++) {
        const int16_t* row = subs[r];
        for (j = 0; j < n; j++) dst[j] = (int16_t)(dst[j] - row[j]);
    }
}

/* Scalar C that gcc -O3 makes pmaxsw/pminsw/pmullw/pmaddwd. */
static int64_t kestrel_nnue_screlu_portable(const int16_t* acc, const int16_t* w, int n, int16_t qa, int chunk) {
    int64_t total = 0;
    int start, end, j;
    for (start = 0; start < n; start = end) {
        int32_t part = 0;
        end = start + chunk < n ? start + chunk : n;
        for (j = start; j < end; j++) {
            int16_t v = acc[j] > 0 ? acc[j] : 0;
            int16_t vw;
            v = v < qa ? v : qa;
            vw = (int16_t)(v * w[j]);
            part += vw * v;
        }
        total += part;
    }
    return total;
}

/* ------------------------------------------------------------------ AVX2 */
#if KESTREL_NNUE_AVX2

#define KESTREL_NNUE_TILE 8     /* 8 ymm registers = 128 lanes held while every row is summed in */

/* 128 lanes at a time stay in registers while all rows are added and subtracted, so a refresh
 * (up to 33 rows) loads and stores its accumulator once instead of once per row; a width that
 * is no multiple of 128 ends 16 lanes at a time (the width is a multiple of 16).  Unaligned
 * loads: the engine's rows are aligned, the tests' buffers need not be, and on aligned data
 * they cost the same. */
KESTREL_NNUE_AVX2_TARGET
static void kestrel_nnue_rows_avx2(int16_t* dst, const int16_t* src, const int16_t* const* adds,
                                   int add_count, const int16_t* const* subs, int sub_count, int n) {
    int j = 0, k, r;
    /* A quiet move and a capture (most updates) stream once through their three or four rows:
     * no tile is worth holding for one add and one or two subtractions. */
    if (add_count == 1 && (sub_count == 1 || sub_count == 2)) {
        const int16_t *a0 = adds[0], *s0 = subs[0], *s1 = sub_count == 2 ? subs[1] : NULL;
        for (; j < n; j += 16) {
            __m256i t = _mm256_add_epi16(_mm256_loadu_si256((const __m256i*)(src + j)),
                                         _mm256_loadu_si256((const __m256i*)(a0 + j)));
            t = _mm256_sub_epi16(t, _mm256_loadu_si256((const __m256i*)(s0 + j)));
            if (s1 != NULL)
                t = _mm256_sub_epi16(t, _mm256_loadu_si256((const __m256i*)(s1 + j)));
            _mm256_storeu_si256((__m256i*)(dst + j), t);
        }
        return;
    }
    for (; j + 16 * KESTREL_NNUE_TILE <= n; j += 16 * KESTREL_NNUE_TILE) {
        __m256i t[KESTREL_NNUE_TILE];
        for (k = 0; k < KESTREL_NNUE_TILE; k++)
            t[k] = _mm256_loadu_si256((const __m256i*)(src + j + 16 * k));
        for (r = 0; r < add_count; r++)
            for (k = 0; k < KESTREL_NNUE_TILE; k++)
                t[k] = _mm256_add_epi16(t[k], _mm256_loadu_si256((const __m256i*)(adds[r] + j + 16 * k)));
        for (r = 0; r < sub_count; r++)
            for (k = 0; k < KESTREL_NNUE_TILE; k++)
                t[k] = _mm256_sub_epi16(t[k], _mm256_loadu_si256((const __m256i*)(subs[r] + j + 16 * k)));
        for (k = 0; k < KESTREL_NNUE_TILE; k++)
            _mm256_storeu_si256((__m256i*)(dst + j + 16 * k), t[k]);
    }
    for (; j < n; j += 16) {
        __m256i t = _mm256_loadu_si256((const __m256i*)(src + j));
        for (r = 0; r < add_count; r++)
            t = _mm256_add_epi16(t, _mm256_loadu_si256((const __m256i*)(adds[r] + j)));
        for (r = 0; r < sub_count; r++)
            t = _mm256_sub_epi16(t, _mm256_loadu_si256((const __m256i*)(subs[r] + j)));
        _mm256_storeu_si256((__m256i*)(dst + j), t);
    }
}

/* Clamp, vpmullw (v * w fits 16 bits), vpmaddwd (its pairs of (v * w) * v into 32 bits), summed
 * over the chunk in 8 int32 lanes and then across them; `chunk` and `n` are multiples of 16. */
KESTREL_NNUE_AVX2_TARGET
static int64_t kestrel_nnue_screlu_avx2(const int16_t* acc, const int16_t* w, int n, int16_t qa, int chunk) {
    const __m256i zero = _mm256_setzero_si256(), ceiling = _mm256_set1_epi16(qa);
    int64_t total = 0;
    int start, end, j;
    for (start = 0; start < n; start = end) {
        __m256i sum = zero;
        __m128i half;
        end = start + chunk < n ? start + chunk : n;
        for (j = start; j < end; j += 16) {
            __m256i v = _mm256_loadu_si256((const __m256i*)(acc + j));
            __m256i vw;
            v = _mm256_min_epi16(_mm256_max_epi16(v, zero), ceiling);
            vw = _mm256_mullo_epi16(v, _mm256_loadu_si256((const __m256i*)(w + j)));
            sum = _mm256_add_epi32(sum, _mm256_madd_epi16(vw, v));
        }
        half = _mm_add_epi32(_mm256_castsi256_si128(sum), _mm256_extracti128_si256(sum, 1));
        half = _mm_add_epi32(half, _mm_shuffle_epi32(half, 0x4E));     /* lanes 2,3 onto 0,1 */
        half = _mm_add_epi32(half, _mm_shuffle_epi32(half, 0xB1));     /* lane 1 onto 0 */
        total += (int32_t)_mm_cvtsi128_si32(half);
    }
    return total;
}

#endif

/* ------------------------------------------------------------------ the choice */

/* Whether this CPU runs the AVX2 kernels: always for a build that requires AVX2; otherwise
 * CPUID's AVX2 bit, and the OS saving the ymm registers (OSXSAVE and XCR0's SSE and AVX bits),
 * without which AVX instructions fault.  CPUID directly rather than __builtin_cpu_supports,
 * which needs a runtime library some toolchains (older macOS ones) lack. */
static int kestrel_nnue_cpu_has_avx2(void) {
#if defined(KESTREL_NNUE_AVX2_RUNTIME)
    unsigned int a, b, c, d, xcr0_low, xcr0_high;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 27)) || !(c & (1u << 28)))  /* OSXSAVE, AVX */
        return 0;
    __asm__ volatile("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
    if ((xcr0_low & 6u) != 6u)
        return 0;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
        return 0;
    return (b >> 5) & 1u;                                                            /* AVX2 */
#else
    return KESTREL_NNUE_AVX2;
#endif
}

/* Use the fastest kernels this CPU runs (`simd` true) or the portable loops; returns the kernels
 * now in use. */
static int kestrel_nnue_select_kernels(int simd) {
    kestrel_nnue_kernels = simd && kestrel_nnue_cpu_has_avx2() ? KESTREL_NNUE_KERNELS_AVX2
                                                              : KESTREL_NNUE_KERNELS_PORTABLE;
    return kestrel_nnue_kernels;
}

KESTREL_NNUE_INLINE void kestrel_nnue_rows(int16_t* dst, const int16_t* src, const int16_t* const* adds,
                                          int add_count, const int16_t* const* subs, int sub_count, int n) {
#if KESTREL_NNUE_AVX2
    if (kestrel_nnue_kernels == KESTREL_NNUE_KERNELS_AVX2) {
        kestrel_nnue_rows_avx2(dst, src, adds, add_count, subs, sub_count, n);
        return;
    }
#endif
    kestrel_nnue_rows_portable(dst, src, adds, add_count, subs, sub_count, n);
}

KESTREL_NNUE_INLINE int64_t kestrel_nnue_screlu(const int16_t* acc, const int16_t* w, int n, int16_t qa, int chunk) {
#if KESTREL_NNUE_AVX2
    if (kestrel_nnue_kernels == KESTREL_NNUE_KERNELS_AVX2)
        return kestrel_nnue_screlu_avx2(acc, w, n, qa, chunk);
#endif
    return kestrel_nnue_screlu_portable(acc, w, n, qa, chunk);
}

#endif
