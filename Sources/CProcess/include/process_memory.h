#ifndef FACESCAN_PROCESS_MEMORY_H
#define FACESCAN_PROCESS_MEMORY_H

/// Tells the C allocator of this process (glibc's malloc; elsewhere nothing is done) to keep
/// memory it has freed for the process's next allocations instead of returning it to the
/// system at once: a capture's large arrays (frames' text, the average, the smoothing's passes,
/// the meshes, the thumbnail, the output bytes) are freed and allocated again for the next
/// capture, and each return costs the kernel a page fault per page when the memory is touched
/// again. Called once by `facescan batch` before its first capture (a single capture reuses
/// nothing and pays for a heap grown in small steps); the library never calls it (an app
/// embedding FaceScanKit keeps its own allocator settings).
void facescan_keep_freed_memory(void);

/// Starts writing the dirty pages of the open file `fd` to disk without waiting for them
/// (Linux: `sync_file_range(SYNC_FILE_RANGE_WRITE)`; elsewhere nothing is done). A later
/// `fdatasync` then mostly finds the bytes written. Used by the command line's output sets
/// (FacescanTools) right after a file is staged; returns 0, or -1 with `errno` set.
int facescan_start_writeback(int fd);

#endif
