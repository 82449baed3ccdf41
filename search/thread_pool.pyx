"""The parked search threads of search/thread_pool.pxd: ``ThreadPool``."""

cimport cython

import sys
import threading

from cpython.mem cimport PyMem_Malloc, PyMem_Free
from cpython.pythread cimport (
    PyThread_allocate_lock, PyThread_free_lock, PyThread_acquire_lock, PyThread_release_lock, WAIT_LOCK,
)

cdef extern from "thread_priority.h" nogil:
    void lower_thread_priority "kestrel_lower_thread_priority"()

cdef extern from "clock.h" nogil:
    int load_flag "kestrel_load_flag"(int* flag)
    void store_flag "kestrel_store_flag"(int* flag, int value)


cdef void no_task(void* owner, int index) noexcept nogil:
    pass


# The pool and its threads form a cycle (each Thread's target is the pool's bound _serve), which
# the garbage collector may clear at the end of the interpreter: cleared, `threads` would be None
# when the owner's __dealloc__ closes the pool.  Not cleared, close() still finds what to join.
@cython.no_gc_clear
cdef class ThreadPool:
    """Threads that wait, without spinning, for one task per search."""

    def __cinit__(self):
        self.owner = NULL
        self.task = no_task
        self.name = "kestrel-thread"
        self.size = 0
        self.wake = NULL
        self.done = NULL
        self.lock_count = 0
        self.quitting = 0
        self.round_size = 0
        self.lowered = 0
        self.threads = []
        self.threads_started = 0

    def __dealloc__(self):
        self._free_locks()

    cdef void bind(self, void* owner, PoolTask task, str name):
        self.owner = owner
        self.task = task
        self.name = name

    cdef int resize(self, int size, int lowered=0) except -1:
        cdef int i
        self.close()
        if size <= 0:
            return 0
        self.lowered = lowered
        self.wake = <PyThread_type_lock*>PyMem_Malloc(size * sizeof(PyThread_type_lock))
        self.done = <PyThread_type_lock*>PyMem_Malloc(size * sizeof(PyThread_type_lock))
        if self.wake == NULL or self.done == NULL:
            self._free_locks()
            raise MemoryError("cannot allocate the search threads")
        for i in range(size):
            self.wake[i] = NULL
            self.done[i] = NULL
        self.lock_count = size
        for i in range(size):
            self.wake[i] = PyThread_allocate_lock()
            self.done[i] = PyThread_allocate_lock()
            if self.wake[i] == NULL or self.done[i] == NULL:
                self._free_locks()
                raise MemoryError("cannot allocate the search threads' locks")
            # Both held: the thread parks on `wake`, and `finish` waits on `done`.
            PyThread_acquire_lock(self.wake[i], WAIT_LOCK)
            PyThread_acquire_lock(self.done[i], WAIT_LOCK)
        try:
            for i in range(size):
                thread = threading.Thread(target=self._serve, args=(i,), name=f"{self.name}-{i + 1}", daemon=True)
                thread.start()
                self.threads.append(thread)
                self.size = i + 1
                self.threads_started += 1
        except BaseException:
            self.close()
            raise
        return 0

    def _serve(self, int index) -> None:
        """The body of thread `index`: park, wake its part of the round, run the task, say
        so, park again."""
        cdef int child = 2 * index + 1
        with nogil:
            if index < self.lowered:
                lower_thread_priority()
            while True:
                PyThread_acquire_lock(self.wake[index], WAIT_LOCK)
                if load_flag(&self.quitting):
                    break
                if index < self.round_size:     # woken by start_all, not by start
                    if child < self.round_size:
                        PyThread_release_lock(self.wake[child])
                    if child + 1 < self.round_size:
                        PyThread_release_lock(self.wake[child + 1])
                self.task(self.owner, index)
                PyThread_release_lock(self.done[index])

    cdef void start(self, int index) noexcept nogil:
        PyThread_release_lock(self.wake[index])

    cdef void start_all(self, int count) noexcept nogil:
        if count > 0:
            self.round_size = min(count, self.size)
            PyThread_release_lock(self.wake[0])

    cdef void finish(self, int index) noexcept nogil:
        PyThread_acquire_lock(self.done[index], WAIT_LOCK)

    cdef void close(self):
        cdef int i
        if self.size == 0:
            # No thread to wake (none was started, or all are joined): only locks to free.
            self.round_size = 0
            self._free_locks()
            return
        if sys.is_finalizing():
            return
        store_flag(&self.quitting, 1)
        for i in range(self.size):
            PyThread_release_lock(self.wake[i])
        for thread in self.threads:
            thread.join()
        self.threads = []
        self.size = 0
        self.round_size = 0         # the next pool's threads must not wake by this one's rounds
        store_flag(&self.quitting, 0)
        self._free_locks()

    cdef void _free_locks(self):
        """Free the locks (their threads are joined, or never were started)."""
        cdef int i
        for i in range(self.lock_count):
            if self.wake[i] != NULL:
                PyThread_free_lock(self.wake[i])
            if self.done[i] != NULL:
                PyThread_free_lock(self.done[i])
        PyMem_Free(self.wake)
        PyMem_Free(self.done)
        self.wake = NULL
        self.done = NULL
        self.lock_count = 0
