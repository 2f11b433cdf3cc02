#ifndef FACESCAN_PROCESS_FILES_H
#define FACESCAN_PROCESS_FILES_H

/// Starts writing the dirty pages of the open file `fd` to disk without waiting for them
/// (Linux: `sync_file_range(SYNC_FILE_RANGE_WRITE)`; elsewhere nothing is done). A later
/// `fdatasync` then mostly finds the bytes written. Used by the command line's output sets
/// (FacescanTools) right after a file is staged; returns 0, or -1 with `errno` set.
int facescan_start_writeback(int fd);

#endif
