/* The NNUE trainer's inner loops over the hidden units, for float and double.
 *
 * They are C rather than Cython for one word: restrict.  Without it the compiler must assume that
 * an accumulator and a row of W may overlap, and it fell back to scalar code in the hottest loops
 * (perf showed addss/movss there).  With it, and with -fno-trapping-math (setup.py adds it for this
 * module: a float comparison that may trap keeps GCC from turning the clamps into vector selects),
 * every loop below is vectorised at -O3.  The reduction keeps eight partial sums, which the compiler
 * packs into vector registers without -ffast-math (one running sum would be one long dependency
 * chain); no reassociation flag is needed.  __restrict is understood by GCC, Clang and MSVC alike.
 */
#ifndef KESTREL_NNUE_LOOPS_H
#define KESTREL_NNUE_LOOPS_H

#include <stddef.h>
#include <stdint.h>

#if defined(_MSC_VER)
#define NNUE_INLINE static __inline
#else
#define NNUE_INLINE static inline
#endif

#define NNUE_LOOPS(T, S)                                                                              \
/* dst[j] += src[j] */                                                                                \
NNUE_INLINE void nnue_add_##S(T* __restrict dst, const T* __restrict src, ptrdiff_t n) {              \
    ptrdiff_t j;                                                                                      \
    for (j = 0; j < n; j++) dst[j] += src[j];                                                         \
}                                                                                                     \
/* dst += the rows (n wide) of base listed in rows[0 .. count), four rows per pass: one load and    \
 * store of dst per four rows (left to itself GCC jams the row loop and stops vectorising).  The     \
 * forward pass sums rows of W into an accumulator; the backward pass sums the accumulator           \
 * gradients of the positions that share a feature into that feature's row of the gradient. */      \
NNUE_INLINE void nnue_add_rows_##S(T* __restrict dst, const T* base, const int32_t* rows, int count,   \
                                   ptrdiff_t n) {                                                     \
    ptrdiff_t j;                                                                                      \
    int k = 0;                                                                                        \
    for (; k + 4 <= count; k += 4) {                                                                  \
        const T* __restrict r0 = base + (ptrdiff_t)rows[k] * n;                                       \
        const T* __restrict r1 = base + (ptrdiff_t)rows[k + 1] * n;                                   \
        const T* __restrict r2 = base + (ptrdiff_t)rows[k + 2] * n;                                   \
        const T* __restrict r3 = base + (ptrdiff_t)rows[k + 3] * n;                                   \
        for (j = 0; j < n; j++) dst[j] += (r0[j] + r1[j]) + (r2[j] + r3[j]);                          \
    }                                                                                                 \
    for (; k < count; k++) {                                                                          \
        const T* __restrict r0 = base + (ptrdiff_t)rows[k] * n;                                       \
        for (j = 0; j < n; j++) dst[j] += r0[j];                                                      \
    }                                                                                                 \
}                                                                                                     \
/* sum_j clamp(acc[j], 0, 1)^2 * w[j] */                                                              \
NNUE_INLINE double nnue_screlu_dot_##S(const T* __restrict acc, const T* __restrict w, ptrdiff_t n) { \
    T s[8] = {0, 0, 0, 0, 0, 0, 0, 0};                                                                \
    ptrdiff_t j, k;                                                                                   \
    T v;                                                                                              \
    for (j = 0; j + 8 <= n; j += 8) {                                                                 \
        for (k = 0; k < 8; k++) {                                                                     \
            v = acc[j + k] > 0 ? acc[j + k] : 0;                                                      \
            v = v < 1 ? v : 1;                                                                        \
            s[k] += v * v * w[j + k];                                                                 \
        }                                                                                             \
    }                                                                                                 \
    for (; j < n; j++) {                                                                              \
        v = acc[j] > 0 ? acc[j] : 0;                                                                  \
        v = v < 1 ? v : 1;                                                                            \
        s[0] += v * v * w[j];                                                                         \
    }                                                                                                 \
    return ((double)s[0] + s[1] + s[2] + s[3]) + ((double)s[4] + s[5] + s[6] + s[7]);                 \
}                                                                                                     \
/* The backward pass through one half of the output layer and the SCReLU:                            \
 * grad_w[j] += dout * v_j^2 and d[j] = 2 * dout * v_j * w[j] inside the clamp's open interval          \
 * (0 outside it), where v_j = clamp(acc[j], 0, 1). */                                                \
NNUE_INLINE void nnue_screlu_backward_##S(const T* __restrict acc, const T* __restrict w,              \
                                          T* __restrict grad_w, T* __restrict d, T dout, ptrdiff_t n) { \
    ptrdiff_t j;                                                                                      \
    T a, v, g;                                                                                        \
    for (j = 0; j < n; j++) {                                                                         \
        a = acc[j];                                                                                   \
        v = a > 0 ? a : 0;                                                                            \
        v = v < 1 ? v : 1;                                                                            \
        grad_w[j] += dout * v * v;                                                                    \
        /* Computed before the select (a product inside it would stop the vectoriser); at a <= 0      \
         * v = 0 makes g = 0, so one test is enough. */                                               \
        g = 2 * dout * v * w[j];                                                                      \
        d[j] = a < 1 ? g : 0;                                                                         \
    }                                                                                                 \
}

NNUE_LOOPS(float, f32)
NNUE_LOOPS(double, f64)

#undef NNUE_LOOPS

#endif
