#ifndef SLIPSTREAM_ALLOCATION_COUNTER_H
#define SLIPSTREAM_ALLOCATION_COUNTER_H

/* Heap allocations (malloc, calloc, realloc) made so far by the calling thread. The test
   binary's malloc family counts them and hands every call on to glibc's own allocator. */
unsigned long slipstream_thread_allocation_count(void);

#endif
