#include "process_memory.h"

#include <stdlib.h>  // defines __GLIBC__ with glibc
#if defined(__GLIBC__)
#include <malloc.h>
#endif

void facescan_keep_freed_memory(void) {
#if defined(__GLIBC__)
    // Blocks up to 32 MiB (the most glibc allows) come from the heap rather than their own
    // mapping, and up to 256 MiB of freed memory at a heap's top stays with the process.
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
}
