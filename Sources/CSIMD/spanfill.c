// One triangle's box in a strip of the thumbnail's visibility buffer, eight samples per step with
// AVX2: the loop of `StripRenderer.Span.fill8` (StripRenderer.swift), operation for operation.
//
// The edge functions are 32-bit integers stepped with wrapping adds, as in Swift (`&+`); the
// depth plane is single precision in the same order of operations (contraction is off), so each
// lane's 1/depth, and therefore each sample's triangle, are bit-identical to the Swift loop's.
#include "facescan_simd.h"

#pragma STDC FP_CONTRACT OFF

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

__attribute__((target("avx2")))
static void fill_avx2(float *z_row, int32_t *id_row, ptrdiff_t stride, int32_t count, int32_t y0, int32_t y1,
                      facescan_span_edges edges, float zx, float zy, float zc, float fx0, int32_t tag) {
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i next0 = _mm256_set1_epi32((int32_t)((uint32_t)edges.step_x[0] << 3));
    const __m256i next1 = _mm256_set1_epi32((int32_t)((uint32_t)edges.step_x[1] << 3));
    const __m256i next2 = _mm256_set1_epi32((int32_t)((uint32_t)edges.step_x[2] << 3));
    const __m256i down0 = _mm256_set1_epi32(edges.step_y[0]), down1 = _mm256_set1_epi32(edges.step_y[1]);
    const __m256i down2 = _mm256_set1_epi32(edges.step_y[2]);
    const __m256 z_lane = _mm256_mul_ps(_mm256_setr_ps(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_ps(zx));
    const __m256 z_next = _mm256_set1_ps(8 * zx);
    const __m256i eight = _mm256_set1_epi32(8);
    const __m256i lanes_left = _mm256_sub_epi32(_mm256_set1_epi32(count - 1), lane);
    const __m256i tags = _mm256_set1_epi32(tag);
    // The three edge functions at the row's first eight samples: the row before's plus the step
    // down (wrapping, as the Swift loop's SIMD3 of row starts plus its eight lanes).
    __m256i row0 = _mm256_add_epi32(_mm256_set1_epi32(edges.origin[0]), _mm256_mullo_epi32(lane, _mm256_set1_epi32(edges.step_x[0])));
    __m256i row1 = _mm256_add_epi32(_mm256_set1_epi32(edges.origin[1]), _mm256_mullo_epi32(lane, _mm256_set1_epi32(edges.step_x[1])));
    __m256i row2 = _mm256_add_epi32(_mm256_set1_epi32(edges.origin[2]), _mm256_mullo_epi32(lane, _mm256_set1_epi32(edges.step_x[2])));
    for (int32_t y = y0; y <= y1; y++) {
        __m256i e0 = row0, e1 = row1, e2 = row2, left = lanes_left;
        const float start = zx * fx0 + zy * ((float)y + 0.5f) + zc;
        __m256 z = _mm256_add_ps(_mm256_set1_ps(start), z_lane);
        for (int32_t k = 0; k < count; k += 8) {
            const __m256 old_z = _mm256_loadu_ps(z_row + k);
            const __m256 old_id = _mm256_loadu_ps((const float *)(id_row + k));
            // Sign bit set where the sample is inside (no edge function and no lanes-left count
            // negative) and nearer (old − new negative): the Swift loop's `hit` lanes.
            const __m256i outside = _mm256_or_si256(_mm256_or_si256(e0, e1), _mm256_or_si256(e2, left));
            const __m256 hit = _mm256_castsi256_ps(_mm256_andnot_si256(outside, _mm256_castps_si256(_mm256_sub_ps(old_z, z))));
            _mm256_storeu_ps(z_row + k, _mm256_blendv_ps(old_z, z, hit));
            _mm256_storeu_ps((float *)(id_row + k), _mm256_blendv_ps(old_id, _mm256_castsi256_ps(tags), hit));
            e0 = _mm256_add_epi32(e0, next0);
            e1 = _mm256_add_epi32(e1, next1);
            e2 = _mm256_add_epi32(e2, next2);
            z = _mm256_add_ps(z, z_next);
            left = _mm256_sub_epi32(left, eight);
        }
        row0 = _mm256_add_epi32(row0, down0);
        row1 = _mm256_add_epi32(row1, down1);
        row2 = _mm256_add_epi32(row2, down2);
        z_row += stride;
        id_row += stride;
    }
}

int facescan_span_fill_available(void) { return __builtin_cpu_supports("avx2") ? 1 : 0; }

int facescan_span_fill(float *z_row, int32_t *id_row, ptrdiff_t stride, int32_t count, int32_t y0, int32_t y1,
                       facescan_span_edges edges, float zx, float zy, float zc,
                       float fx0, int32_t tag) {
    if (!__builtin_cpu_supports("avx2")) return -1;
    fill_avx2(z_row, id_row, stride, count, y0, y1, edges, zx, zy, zc, fx0, tag);
    return 0;
}

#else

int facescan_span_fill_available(void) { return 0; }

int facescan_span_fill(float *z_row, int32_t *id_row, ptrdiff_t stride, int32_t count, int32_t y0, int32_t y1,
                       facescan_span_edges edges, float zx, float zy, float zc,
                       float fx0, int32_t tag) {
    (void)z_row; (void)id_row; (void)stride; (void)count; (void)y0; (void)y1; (void)edges; (void)zx; (void)zy; (void)zc; (void)fx0; (void)tag;
    return -1;
}

#endif
