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

/// 1 when this CPU runs ``facescan_place_collapses``, 0 when that returns -1.
int facescan_place_collapses_available(void);

/// The optimal placement and cost of the interior edge collapses at `candidates` (24-byte records:
/// float x, y, z, cost; uint32 drop, keep) slots `slots[0..<count]`: the placement of the sum of
/// both ends' quadrics (10 doubles each, a00 a01 a02 a11 a12 a22 b0 b1 b2 c, around `centre`)
/// by `Quadric.regularisedMinimum` near the edge's midpoint (`positions`: 4 floats per vertex),
/// bit-identical to the scalar code. A slot whose placement fails gets a NaN cost (the caller
/// ranks it in scalar code). Returns 0, or -1 when this CPU has no AVX2 (nothing is written).
int facescan_place_collapses(const double *quadrics, const float *positions, const double *centre,
                             double exact_determinant, double regularisation,
                             const uint32_t *slots, size_t count, float *candidates);

/// A hint to the CPU that the caller is spinning on a memory location (x86 `pause`, Arm `yield`).
static inline void facescan_cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
    __asm__ __volatile__("yield");
#endif
}

#endif
