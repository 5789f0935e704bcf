/*
 * Counts malloc, calloc and realloc calls per thread, for measuring what one call allocates
 * on the calling thread while other threads (an ICE agent's, the test runner's) go on.
 *
 *   gcc -shared -fPIC -O2 -o .build/thread_malloc_count.so Tests/Tools/thread_malloc_count.c
 *   CAMRTP_ICE_MEASURE=1 LD_PRELOAD=.build/thread_malloc_count.so swift test --skip-build --filter ICEMeasurements
 *
 * The measurement looks camrtp_thread_malloc_count up with dlsym; without the preload it
 * reports no allocation figure.
 */
#include <stddef.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);

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

unsigned long camrtp_thread_malloc_count(void) {
    return allocations;
}
