#include <stddef.h>
#include "CAllocationCounter.h"

/* Linked into the test executable, these definitions take the place of glibc's malloc,
   calloc, realloc and free for the whole process (the executable's symbols come first), count
   each allocation on the calling thread, and call glibc's allocator under its other names, so
   the heap is the same one. The count lives in thread-local storage of the executable itself,
   which needs no allocation to reach. Aligned allocations (posix_memalign, aligned_alloc) go
   to glibc uncounted. */

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void __libc_free(void *pointer);

static __thread unsigned long allocations;

void *malloc(size_t size) {
    allocations++;
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    allocations++;
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    allocations++;
    return __libc_realloc(pointer, size);
}

void free(void *pointer) {
    __libc_free(pointer);
}

unsigned long slipstream_thread_allocation_count(void) {
    return allocations;
}
