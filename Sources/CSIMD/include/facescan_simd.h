// Vector kernels for FaceScanKit's hot loops, with runtime CPU dispatch.
#ifndef FACESCAN_SIMD_H
#define FACESCAN_SIMD_H

#include <stddef.h>
#include <stdint.h>

/// Decodes `groups` groups of 16 base64 characters (RFC 4648 alphabet, no padding) from `src`
/// into 3 little-endian float32 values each at `dst` (12 bytes per group).
/// Returns 1 when every character was in the alphabet and every value is finite, 0 when not
/// (`dst` then holds unspecified values), and -1 when this CPU has no vector path (neither AVX2
/// nor SSSE3; nothing is written; the caller decodes in scalar code).
int facescan_base64_floats(const uint8_t *src, size_t groups, float *dst);

#endif
