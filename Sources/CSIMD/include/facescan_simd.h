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

/// Where a scan of a JSON object stands between two pieces of its text.
typedef struct {
    int32_t depth;      // braces open outside strings
    int32_t in_string;  // 1 inside a string
    int32_t escape;     // 1 when the previous piece ended on a backslash inside a string
} facescan_scan_state;

/// Scans `p[0..<n]`, the text of a JSON object from its `{` (or the rest of it, with `state` as
/// the previous call left it), for the `}` that closes it: braces outside strings, strings with
/// their escapes, nothing else (the parser checks the rest). Returns the index just past that
/// brace, or -1 when it is not in these bytes (`state` then tells where the scan stands).
ptrdiff_t facescan_object_end(const uint8_t *p, size_t n, facescan_scan_state *state);

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

/// 1 when this CPU runs ``facescan_ring_average``, 0 when that returns -1.
int facescan_ring_average_available(void);

/// One round of one-ring averaging: for each of the `n` vertices, its 28 floats at `src` plus
/// those of its neighbours (`neighbors[offsets[v] ..< offsets[v + 1]]`, in that order), times
/// 1 / (neighbours + 1), into `dst`; bit-identical to the scalar code. Returns 0, or -1 when this
/// CPU has no AVX (nothing is written).
int facescan_ring_average(const float *src, float *dst, const int32_t *offsets, const uint32_t *neighbors,
                          size_t n);

/// A triangle's three edge functions at its box's first sample and their steps per sample to the
/// right and per row down (fixed point, as `StripRenderer.rasterize` sets them up).
typedef struct {
    int32_t origin[3];
    int32_t step_x[3];
    int32_t step_y[3];
} facescan_span_edges;

/// One triangle's box in a strip of a visibility buffer (the thumbnail's rasteriser,
/// `StripRenderer.Span.fill8`): rows `y0…y1`, `count` samples each from `z_row`/`id_row` (the
/// box's first row; `stride` samples to the next), eight at a time (up to seven samples past
/// `count` are read and written back unchanged). A sample whose three edge functions (`origin`
/// at the box's first sample, stepped by `step_x` per sample and `step_y` per row, wrapping
/// 32-bit) are not negative and whose 1/depth (`zx·(fx0 + k) + zy·(y + ½) + zc`, as the Swift
/// loop computes it) is nearer than what is there gets that 1/depth and `tag`. Bit-identical to
/// the Swift loop. Returns 0, or -1 when this CPU has no AVX2 (nothing is written).
int facescan_span_fill(float *z_row, int32_t *id_row, ptrdiff_t stride, int32_t count, int32_t y0, int32_t y1,
                       facescan_span_edges edges, float zx, float zy, float zc, float fx0, int32_t tag);

/// 1 when `facescan_span_fill` draws on this CPU (it has AVX2), else 0.
int facescan_span_fill_available(void);

/// The output pixels of one strip of a visibility buffer (the thumbnail's rasteriser,
/// `StripRenderer.resolve`, which calls it): for each pixel in columns `column0..<column1` of the
/// output rows the strip's sample rows `top..<top + rows` cover (`ss` × `ss` samples a pixel,
/// `width` samples a row; `z` and `id` the strip's 1/depth and `2 · triangle + side` per sample,
/// −1 where empty), the colour of its visible samples from their triangles' planes
/// (`plane_bytes`: 12 floats per triangle), encoded through `lut` (linear → sRGB byte), alpha from
/// coverage, into `out` (RGBA8, `size` pixels a row), and 1 / the nearest 1/depth into `depth`
/// when not NULL. A pixel with no sample drawn is left as it is.
void facescan_resolve_strip(const float *z, const int32_t *id, ptrdiff_t width, ptrdiff_t top, ptrdiff_t rows,
                            ptrdiff_t ss, ptrdiff_t column0, ptrdiff_t column1, const void *plane_bytes,
                            const uint8_t *lut, ptrdiff_t lut_count, uint8_t *out, ptrdiff_t size, float *depth);

/// 10^k for 0 ≤ k ≤ 8, from a constant table (the number parser's multiplier per digit run).
static inline uint64_t facescan_pow10_u64(int k) {
    static const uint64_t table[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};
    return table[k];
}

/// A hint to the CPU that the caller is spinning on a memory location (x86 `pause`, Arm `yield`).
static inline void facescan_cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
    __asm__ __volatile__("yield");
#endif
}

#endif
