# Search threads that live between searches (Threads > 1): started once, when the thread count
# is set, parked while no search runs, handed one task per search, joined when the count
# changes or their owner goes.  Starting hundreds of threads per `go` on a machine with two
# cores took seconds; waking parked ones takes microseconds.
#
# Each thread waits on two of Python's own locks used as binary semaphores (portable, and
# they block in the OS without the GIL): its `wake` lock, which the owner releases to hand it
# its task (or to let it quit), and its `done` lock, which it releases when the task returns.

from cpython.pythread cimport PyThread_type_lock

# The task of thread `index` in one search, run without the GIL.  `owner` is the pool's owner
# (a borrowed pointer: the owner closes the pool before it goes away).
ctypedef void (*PoolTask)(void* owner, int index) noexcept nogil


cdef class ThreadPool:
    cdef void* owner
    cdef PoolTask task
    cdef str name                      # the threads are name-1, name-2, ...
    cdef readonly int size             # threads alive, each parked or running its task
    cdef PyThread_type_lock* wake
    cdef PyThread_type_lock* done
    cdef int lock_count                # entries of `wake` and `done`
    cdef int quitting                  # set while closing: a woken thread leaves its loop
    cdef int round_size                # start_all: threads 0..round_size-1 wake each other
    cdef int lowered                   # threads 0..lowered-1 run at a lower priority (thread_priority.h)
    cdef list threads                  # their Python threads
    cdef readonly unsigned long long threads_started   # over the pool's life: they are reused

    # Run `task(owner, i)` in thread i, on each `start`; no thread is started yet.
    cdef void bind(self, void* owner, PoolTask task, str name)
    # Join the threads there are, then start `size` parked ones, the first `lowered` of them at a
    # lower priority; if one cannot be started, the others are joined, the pool is left empty
    # and the error raised.
    cdef int resize(self, int size, int lowered=*) except -1
    # Hand thread `index` its task (it must be parked, and not one of a start_all round that
    # may still be waking: index >= that round's count); returns at once.
    cdef void start(self, int index) noexcept nogil
    # Hand threads 0..count-1 their tasks: this wakes thread 0, and each woken thread wakes two
    # more (2i+1 and 2i+2) before its task.  Waking them all here would take this thread
    # tens of milliseconds where there are many more threads than cores: each thread woken
    # competes with the waker for a core.
    cdef void start_all(self, int count) noexcept nogil
    # Wait until thread `index`, started, has finished its task and is parked again.
    cdef void finish(self, int index) noexcept nogil
    # Wake every parked thread to leave and join them (not while a task runs).  At interpreter
    # exit they are left parked: a thread woken then could not take the GIL to end.
    cdef void close(self)
    cdef void _free_locks(self)
