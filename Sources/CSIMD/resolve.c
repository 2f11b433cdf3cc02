// The resolve of one strip of the thumbnail's visibility buffer into output pixels: the loop of
// `StripRenderer.resolve` (StripRenderer.swift), in C for the per-pixel index arithmetic and the
// float-to-index conversions Swift checks at every pixel (overflow, range), which cost as much as
// the shading itself. Portable C, no vector instructions: single-precision operations in the
// Swift code's order (contraction off), so the bytes are the same.
#include "facescan_simd.h"

#pragma STDC FP_CONTRACT OFF

// Four single-precision lanes (the compiler's vector extension: SSE on x86-64, NEON on Arm), each
// operation lane by lane as Swift's SIMD4<Float>.
typedef float v4f __attribute__((vector_size(16)));

static inline v4f load4(const float *p) {
    v4f v;
    __builtin_memcpy(&v, p, sizeof v);
    return v;
}

// Linear RGB of the triangle side `tag` at sample point (x, y), from its three colour planes (12
// floats: x, y and constant terms of r, g, b, w): v = plane0·x + plane1·y + plane2, colour v / v.w.
static inline v4f shade(const float *planes, int32_t tag, float x, float y) {
    const float *p = planes + 12 * (size_t)(tag >> 1);
    const v4f v = load4(p) * x + load4(p + 4) * y + load4(p + 8);
    return v * (1 / v[3]);
}

static inline uint8_t encode(const uint8_t *lut, float lut_max, float x) {
    const float clamped = x > 0 ? (x < 1 ? x : 1) : 0;
    return lut[(ptrdiff_t)(clamped * lut_max + 0.5f)];
}

void facescan_resolve_strip(const float *z, const int32_t *id, ptrdiff_t width, ptrdiff_t top, ptrdiff_t rows,
                            ptrdiff_t ss, ptrdiff_t column0, ptrdiff_t column1, const void *plane_bytes,
                            const uint8_t *lut, ptrdiff_t lut_count, uint8_t *out, ptrdiff_t size, float *depth) {
    const float *planes = (const float *)plane_bytes;
    const ptrdiff_t per_pixel = ss * ss;
    const float lut_max = (float)(lut_count - 1);
    const float half = (float)ss / 2;
    for (ptrdiff_t py = top / ss; py < (top + rows) / ss; py++) {
        const ptrdiff_t sample_row = (py * ss - top) * width;
        for (ptrdiff_t px = column0; px < column1; px++) {
            const ptrdiff_t base = sample_row + px * ss;
            const int32_t first = id[base];
            ptrdiff_t covered = 0;
            float nearest = 0;
            v4f c;
            if (ss == 2) {
                // The default 2×2 pattern, unrolled; the samples in the Swift loop's order.
                const int32_t t1 = id[base + 1], t2 = id[base + width], t3 = id[base + width + 1];
                if (first < 0 && t1 < 0 && t2 < 0 && t3 < 0) continue;
                covered = (first >= 0) + (t1 >= 0) + (t2 >= 0) + (t3 >= 0);
                if (depth) {
                    const float a = z[base], b = z[base + 1], d0 = z[base + width], d1 = z[base + width + 1];
                    const float ab = b >= a ? b : a, cd = d1 >= d0 ? d1 : d0;
                    nearest = cd >= ab ? cd : ab;
                }
                if (first == t1 && first == t2 && first == t3) {
                    c = shade(planes, first, (float)(px * 2) + half, (float)(py * 2) + half);
                } else {
                    const float x0 = (float)(px * 2) + 0.5f, x1 = (float)(px * 2 + 1) + 0.5f;
                    const float y0 = (float)(py * 2) + 0.5f, y1 = (float)(py * 2 + 1) + 0.5f;
                    c = (v4f){0, 0, 0, 0};
                    if (first >= 0) c = c + shade(planes, first, x0, y0);
                    if (t1 >= 0) c = c + shade(planes, t1, x1, y0);
                    if (t2 >= 0) c = c + shade(planes, t2, x0, y1);
                    if (t3 >= 0) c = c + shade(planes, t3, x1, y1);
                    c = c / (float)covered;
                }
            } else {
                int same = 1;
                for (ptrdiff_t sy = 0; sy < ss; sy++) {
                    for (ptrdiff_t sx = 0; sx < ss; sx++) {
                        const int32_t tag = id[base + sy * width + sx];
                        same = same && tag == first;
                        if (tag >= 0) {
                            covered += 1;
                            const float s = z[base + sy * width + sx];
                            nearest = s >= nearest ? s : nearest;
                        }
                    }
                }
                if (covered <= 0) continue;
                if (same) {
                    // One surface under the whole pixel: evaluated once at its centre.
                    c = shade(planes, first, (float)(px * ss) + half, (float)(py * ss) + half);
                } else {
                    c = (v4f){0, 0, 0, 0};
                    for (ptrdiff_t sy = 0; sy < ss; sy++) {
                        for (ptrdiff_t sx = 0; sx < ss; sx++) {
                            const int32_t tag = id[base + sy * width + sx];
                            if (tag < 0) continue;
                            c = c + shade(planes, tag, (float)(px * ss + sx) + 0.5f, (float)(py * ss + sy) + 0.5f);
                        }
                    }
                    c = c / (float)covered;
                }
            }
            uint8_t *o = out + 4 * (py * size + px);
            o[0] = encode(lut, lut_max, c[0]);
            o[1] = encode(lut, lut_max, c[1]);
            o[2] = encode(lut, lut_max, c[2]);
            // Coverage as alpha, rounded.
            o[3] = (uint8_t)(per_pixel == 4 ? (covered * 255 + 2) >> 2 : (covered * 255 + per_pixel / 2) / per_pixel);
            if (depth) depth[py * size + px] = 1 / nearest;
        }
    }
}
