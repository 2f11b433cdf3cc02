#if defined(__linux__)
#define _GNU_SOURCE
#include <fcntl.h>
#endif

#include "process_memory.h"

int facescan_start_writeback(int fd) {
#if defined(__linux__)
    return sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
#else
    (void)fd;
    return 0;
#endif
}
