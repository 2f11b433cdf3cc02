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

#endif
