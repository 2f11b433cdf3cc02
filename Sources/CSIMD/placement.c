// Optimal placement and cost of interior edge collapses, four edges per step with AVX2.
//
// The arithmetic is the scalar code's (`Quadric.add`, `Quadric.regularisedMinimum`,
// `Quadric.evaluate` in QuadricSimplifier.swift), operation for operation and in the same order,
// on IEEE doubles in each lane: no fused multiply-add (the AVX2 target alone has none, and
// contraction is off), so every lane's result is bit-identical to the scalar one.
#include "facescan_simd.h"

#pragma STDC FP_CONTRACT OFF

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

// Column k of the 4×4 matrix whose rows are r0…r3.
#define TRANSPOSE4(r0, r1, r2, r3, c0, c1, c2, c3)                    \
    do {                                                              \
        __m256d t0 = _mm256_unpacklo_pd(r0, r1);                      \
        __m256d t1 = _mm256_unpackhi_pd(r0, r1);                      \
        __m256d t2 = _mm256_unpacklo_pd(r2, r3);                      \
        __m256d t3 = _mm256_unpackhi_pd(r2, r3);                      \
        c0 = _mm256_permute2f128_pd(t0, t2, 0x20);                    \
        c1 = _mm256_permute2f128_pd(t1, t3, 0x20);                    \
        c2 = _mm256_permute2f128_pd(t0, t2, 0x31);                    \
        c3 = _mm256_permute2f128_pd(t1, t3, 0x31);                    \
    } while (0)

typedef struct {
    float x, y, z, cost;
    uint32_t drop, keep;
} candidate_t;

__attribute__((target("avx2")))
static void place_avx2(const double *quadrics, const float *positions, const double *centre,
                       double exact_determinant, double regularisation,
                       const uint32_t *slots, size_t count, float *candidates) {
    candidate_t *cand = (candidate_t *)candidates;
    const __m256d zero = _mm256_setzero_pd(), half = _mm256_set1_pd(0.5), two = _mm256_set1_pd(2.0);
    const __m256d one = _mm256_set1_pd(1.0);
    const __m256d exact = _mm256_set1_pd(exact_determinant), reg = _mm256_set1_pd(regularisation);
    const __m256d inf = _mm256_set1_pd(__builtin_inf());
    const __m256d sign = _mm256_set1_pd(-0.0);
    const __m256d c4 = _mm256_setr_pd(centre[0], centre[1], centre[2], 0.0);
    for (size_t i = 0; i < count; i += 4) {
        uint32_t slot[4];
        for (int k = 0; k < 4; k++) slot[k] = slots[i + k < count ? i + k : count - 1];
        __m256d s0[4], s1[4], s2[4], mid[4];
        for (int k = 0; k < 4; k++) {
            const candidate_t *c = &cand[slot[k]];
            const double *qa = quadrics + 10 * (size_t)c->drop, *qb = quadrics + 10 * (size_t)c->keep;
            s0[k] = _mm256_add_pd(_mm256_loadu_pd(qa), _mm256_loadu_pd(qb));
            s1[k] = _mm256_add_pd(_mm256_loadu_pd(qa + 4), _mm256_loadu_pd(qb + 4));
            s2[k] = _mm256_castpd128_pd256(_mm_add_pd(_mm_loadu_pd(qa + 8), _mm_loadu_pd(qb + 8)));
            __m256d pa = _mm256_sub_pd(_mm256_cvtps_pd(_mm_loadu_ps(positions + 4 * (size_t)c->drop)), c4);
            __m256d pb = _mm256_sub_pd(_mm256_cvtps_pd(_mm_loadu_ps(positions + 4 * (size_t)c->keep)), c4);
            mid[k] = _mm256_mul_pd(_mm256_add_pd(pa, pb), half);
        }
        __m256d a00, a01, a02, a11, a12, a22, b0, b1, b2, c, mx, my, mz, unused;
        TRANSPOSE4(s0[0], s0[1], s0[2], s0[3], a00, a01, a02, a11);
        TRANSPOSE4(s1[0], s1[1], s1[2], s1[3], a12, a22, b0, b1);
        TRANSPOSE4(s2[0], s2[1], s2[2], s2[3], b2, c, unused, unused);
        TRANSPOSE4(mid[0], mid[1], mid[2], mid[3], mx, my, mz, unused);
        (void)unused;

        __m256d trace = _mm256_add_pd(_mm256_add_pd(a00, a11), a22);
        __m256d ok = _mm256_cmp_pd(trace, zero, _CMP_GT_OQ);
        __m256d c00 = _mm256_sub_pd(_mm256_mul_pd(a11, a22), _mm256_mul_pd(a12, a12));
        __m256d c01 = _mm256_sub_pd(_mm256_mul_pd(a02, a12), _mm256_mul_pd(a01, a22));
        __m256d c02 = _mm256_sub_pd(_mm256_mul_pd(a01, a12), _mm256_mul_pd(a02, a11));
        __m256d det = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(a00, c00), _mm256_mul_pd(a01, c01)),
                                    _mm256_mul_pd(a02, c02));
        __m256d bound = _mm256_mul_pd(_mm256_mul_pd(_mm256_mul_pd(exact, trace), trace), trace);
        __m256d regular = _mm256_cmp_pd(det, bound, _CMP_NGT_UQ);  // !(det > bound)
        __m256d m00 = a00, m11 = a11, m22 = a22;
        __m256d r0 = _mm256_xor_pd(b0, sign), r1 = _mm256_xor_pd(b1, sign), r2 = _mm256_xor_pd(b2, sign);
        if (_mm256_movemask_pd(regular)) {
            __m256d eps = _mm256_mul_pd(trace, reg);
            __m256d n00 = _mm256_add_pd(a00, eps), n11 = _mm256_add_pd(a11, eps), n22 = _mm256_add_pd(a22, eps);
            __m256d q0 = _mm256_sub_pd(_mm256_mul_pd(eps, mx), b0);
            __m256d q1 = _mm256_sub_pd(_mm256_mul_pd(eps, my), b1);
            __m256d q2 = _mm256_sub_pd(_mm256_mul_pd(eps, mz), b2);
            __m256d d00 = _mm256_sub_pd(_mm256_mul_pd(n11, n22), _mm256_mul_pd(a12, a12));
            __m256d d01 = _mm256_sub_pd(_mm256_mul_pd(a02, a12), _mm256_mul_pd(a01, n22));
            __m256d d02 = _mm256_sub_pd(_mm256_mul_pd(a01, a12), _mm256_mul_pd(a02, n11));
            __m256d ddet = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(n00, d00), _mm256_mul_pd(a01, d01)),
                                         _mm256_mul_pd(a02, d02));
            // A regularised lane also needs its determinant positive.
            ok = _mm256_andnot_pd(_mm256_andnot_pd(_mm256_cmp_pd(ddet, zero, _CMP_GT_OQ), regular), ok);
            m00 = _mm256_blendv_pd(m00, n00, regular);
            m11 = _mm256_blendv_pd(m11, n11, regular);
            m22 = _mm256_blendv_pd(m22, n22, regular);
            r0 = _mm256_blendv_pd(r0, q0, regular);
            r1 = _mm256_blendv_pd(r1, q1, regular);
            r2 = _mm256_blendv_pd(r2, q2, regular);
            c00 = _mm256_blendv_pd(c00, d00, regular);
            c01 = _mm256_blendv_pd(c01, d01, regular);
            c02 = _mm256_blendv_pd(c02, d02, regular);
            det = _mm256_blendv_pd(det, ddet, regular);
        }
        __m256d c11 = _mm256_sub_pd(_mm256_mul_pd(m00, m22), _mm256_mul_pd(a02, a02));
        __m256d c12 = _mm256_sub_pd(_mm256_mul_pd(a01, a02), _mm256_mul_pd(m00, a12));
        __m256d c22 = _mm256_sub_pd(_mm256_mul_pd(m00, m11), _mm256_mul_pd(a01, a01));
        __m256d inv = _mm256_div_pd(one, det);
        __m256d x = _mm256_mul_pd(_mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(c00, r0), _mm256_mul_pd(c01, r1)),
                                                _mm256_mul_pd(c02, r2)), inv);
        __m256d y = _mm256_mul_pd(_mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(c01, r0), _mm256_mul_pd(c11, r1)),
                                                _mm256_mul_pd(c12, r2)), inv);
        __m256d z = _mm256_mul_pd(_mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(c02, r0), _mm256_mul_pd(c12, r1)),
                                                _mm256_mul_pd(c22, r2)), inv);
        // Finite: |v| < ∞ (false for NaN).
        ok = _mm256_and_pd(ok, _mm256_cmp_pd(_mm256_andnot_pd(sign, x), inf, _CMP_LT_OQ));
        ok = _mm256_and_pd(ok, _mm256_cmp_pd(_mm256_andnot_pd(sign, y), inf, _CMP_LT_OQ));
        ok = _mm256_and_pd(ok, _mm256_cmp_pd(_mm256_andnot_pd(sign, z), inf, _CMP_LT_OQ));

        __m256d quad = _mm256_add_pd(
            _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(_mm256_mul_pd(a00, x), x), _mm256_mul_pd(_mm256_mul_pd(a11, y), y)),
                          _mm256_mul_pd(_mm256_mul_pd(a22, z), z)),
            _mm256_mul_pd(two, _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(_mm256_mul_pd(a01, x), y),
                                                           _mm256_mul_pd(_mm256_mul_pd(a02, x), z)),
                                             _mm256_mul_pd(_mm256_mul_pd(a12, y), z))));
        __m256d lin = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(b0, x), _mm256_mul_pd(b1, y)), _mm256_mul_pd(b2, z));
        __m256d cost = _mm256_add_pd(_mm256_add_pd(quad, _mm256_mul_pd(two, lin)), c);
        // cost > 0 ? Float(cost) : 0; the lanes the scalar code must redo get NaN.
        __m128 fcost = _mm256_cvtpd_ps(_mm256_and_pd(cost, _mm256_cmp_pd(cost, zero, _CMP_GT_OQ)));
        int good = _mm256_movemask_pd(ok);
        __m128 fx = _mm256_cvtpd_ps(_mm256_add_pd(x, _mm256_set1_pd(centre[0])));
        __m128 fy = _mm256_cvtpd_ps(_mm256_add_pd(y, _mm256_set1_pd(centre[1])));
        __m128 fz = _mm256_cvtpd_ps(_mm256_add_pd(z, _mm256_set1_pd(centre[2])));
        float ox[4], oy[4], oz[4], oc[4];
        _mm_storeu_ps(ox, fx);
        _mm_storeu_ps(oy, fy);
        _mm_storeu_ps(oz, fz);
        _mm_storeu_ps(oc, fcost);
        for (int k = 0; k < 4; k++) {
            candidate_t *o = &cand[slot[k]];
            o->x = ox[k];
            o->y = oy[k];
            o->z = oz[k];
            o->cost = (good >> k) & 1 ? oc[k] : __builtin_nanf("");
        }
    }
}

int facescan_place_collapses_available(void) { return __builtin_cpu_supports("avx2") ? 1 : 0; }

int facescan_place_collapses(const double *quadrics, const float *positions, const double *centre,
                             double exact_determinant, double regularisation,
                             const uint32_t *slots, size_t count, float *candidates) {
    if (!__builtin_cpu_supports("avx2")) return -1;
    if (count == 0) return 0;
    place_avx2(quadrics, positions, centre, exact_determinant, regularisation, slots, count, candidates);
    return 0;
}

#else

int facescan_place_collapses_available(void) { return 0; }

int facescan_place_collapses(const double *quadrics, const float *positions, const double *centre,
                             double exact_determinant, double regularisation,
                             const uint32_t *slots, size_t count, float *candidates) {
    (void)quadrics; (void)positions; (void)centre; (void)exact_determinant; (void)regularisation;
    (void)slots; (void)count; (void)candidates;
    return -1;
}

#endif
