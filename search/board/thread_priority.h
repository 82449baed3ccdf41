/* A search thread that should yield the cores to the thread that keeps the clock, portably.
 *
 * With more search threads than cores, a helper of a Lazy SMP search that runs at the same
 * priority as the main thread makes the main thread wait its turn for a core: with 255
 * helpers on two cores that is a tenth of a second and more, each time, so the clock's hard
 * limit and `stop` would be seen late.  Helpers that lower their own priority let the main
 * thread (and the threads that read the GUI and watch the clock) run as soon as they are
 * ready.  It lowers the calling thread only (on Linux a thread's nice value is its own), and
 * it cannot be undone by an unprivileged process: a thread that calls it keeps that priority
 * until it ends.  Where there is no per-thread priority it does nothing.
 */
#ifndef KESTREL_THREAD_PRIORITY_H
#define KESTREL_THREAD_PRIORITY_H

#if defined(_WIN32)
#include <windows.h>
static __inline void kestrel_lower_thread_priority(void) {
    SetThreadPriority(GetCurrentThread(), THREAD_PRIORITY_LOWEST);
}
#elif defined(__linux__)
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
static inline void kestrel_lower_thread_priority(void) {
    setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 19);
}
#elif defined(__APPLE__)
#include <pthread.h>
static inline void kestrel_lower_thread_priority(void) {
    pthread_set_qos_class_self_np(QOS_CLASS_UTILITY, 0);
}
#else
static inline void kestrel_lower_thread_priority(void) {}
#endif

#endif
