// One round of one-ring averaging of 28 floats per vertex (the automatic smoothing's pooling),
// eight lanes at a time with AVX.
//
// The arithmetic is the scalar code's (`Taubin.ringAverage` in Taubin.swift), lane by lane and in
// the same order: the vertex's own values, plus each neighbour's in list order, times
// 1 / (neighbours + 1); no fused multiply-add (contraction is off), so every lane's result is
// bit-identical to the scalar one.
#include "facescan_simd.h"

#pragma STDC FP_CONTRACT OFF

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

__attribute__((target("avx")))
static void ring_average_avx(const float *src, float *dst, const int32_t *offsets, const uint32_t *neighbors,
                             size_t n) {
    for (size_t v = 0; v < n; v++) {
        const float *s = src + 28 * v;
        __m256 a = _mm256_loadu_ps(s), b = _mm256_loadu_ps(s + 8), c = _mm256_loadu_ps(s + 16);
        __m128 d = _mm_loadu_ps(s + 24);
        int32_t lo = offsets[v], hi = offsets[v + 1];
        for (int32_t k = lo; k < hi; k++) {
            const float *u = src + 28 * (size_t)neighbors[k];
            a = _mm256_add_ps(a, _mm256_loadu_ps(u));
            b = _mm256_add_ps(b, _mm256_loadu_ps(u + 8));
            c = _mm256_add_ps(c, _mm256_loadu_ps(u + 16));
            d = _mm_add_ps(d, _mm_loadu_ps(u + 24));
        }
        float scale = 1.0f / (float)(hi - lo + 1);
        __m256 s8 = _mm256_set1_ps(scale);
        float *o = dst + 28 * v;
        _mm256_storeu_ps(o, _mm256_mul_ps(a, s8));
        _mm256_storeu_ps(o + 8, _mm256_mul_ps(b, s8));
        _mm256_storeu_ps(o + 16, _mm256_mul_ps(c, s8));
        _mm_storeu_ps(o + 24, _mm_mul_ps(d, _mm_set1_ps(scale)));
    }
}

int facescan_ring_average_available(void) { return __builtin_cpu_supports("avx") ? 1 : 0; }

int facescan_ring_average(const float *src, float *dst, const int32_t *offsets, const uint32_t *neighbors,
                          size_t n) {
    if (!__builtin_cpu_supports("avx")) return -1;
    ring_average_avx(src, dst, offsets, neighbors, n);
    return 0;
}

#else

int facescan_ring_average_available(void) { return 0; }

int facescan_ring_average(const float *src, float *dst, const int32_t *offsets, const uint32_t *neighbors,
                          size_t n) {
    (void)src; (void)dst; (void)offsets; (void)neighbors; (void)n;
    return -1;
}

#endif
