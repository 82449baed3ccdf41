/* A monotonic clock in milliseconds and a flag another thread may set, portably.
 *
 * The search reads the stop flag without the GIL while the UCI thread writes it;
 * the volatile access keeps the compiler from hoisting the read out of the loop.
 */
#ifndef KESTREL_CLOCK_H
#define KESTREL_CLOCK_H

#include <stdint.h>

#include "inline.h"

#if defined(_WIN32)
#include <windows.h>
KESTREL_INLINE int64_t kestrel_now_ms(void) { return (int64_t)GetTickCount64(); }
KESTREL_INLINE void kestrel_sleep_ms(int ms) { Sleep((DWORD)ms); }
#else
#include <time.h>
KESTREL_INLINE int64_t kestrel_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
KESTREL_INLINE void kestrel_sleep_ms(int ms) {
    struct timespec ts;
    ts.tv_sec = ms / 1000;
    ts.tv_nsec = (long)(ms % 1000) * 1000000L;
    nanosleep(&ts, 0);
}
#endif

KESTREL_INLINE int kestrel_load_flag(volatile int* flag) { return *flag; }
KESTREL_INLINE void kestrel_store_flag(volatile int* flag, int value) { *flag = value; }

#endif
