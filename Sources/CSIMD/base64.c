// Base64 → float32 with AVX2 (32 characters per step) or SSSE3 (16), chosen at run time.
//
// Method: Wojciech Muła, Daniel Lemire, "Faster Base64 Encoding and Decoding Using AVX2
// Instructions", ACM TWEB 12(3), 2018 — section "vectorized lookup, pshufb with bitmask":
// the high nibble of each character selects the offset that maps its range ('A'–'Z', 'a'–'z',
// '0'–'9', '+', '/') to 0…63; validity is one bit test: a 16-entry table indexed by the low nibble
// holds, as a bit mask, the high nibbles that are valid with it. Then two multiply-adds pack
// four 6-bit values into 24 bits and a byte shuffle puts the 3 bytes of each quantum in order.
#include "facescan_simd.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

// One step of the method above on the characters `in`, the same at both vector widths: `P` is the
// intrinsics' prefix (_mm, _mm256) and `S` their integer width (128, 256); uses the step's tables
// (nibble, slash, shift_lut, mask_lut, bit_lut, merge_pairs, merge_quads), ORs invalid characters
// into `bad` and declares `quads`: each quantum's 24 bits, before the bytes are put in order.
#define DECODE_STEP(P, S, V, in, quads)                                                                     \
    const V hi = P##_and_si##S(P##_srli_epi32(in, 4), nibble);                                              \
    const V lo = P##_and_si##S(in, nibble);                                                                 \
    const V valid = P##_and_si##S(P##_shuffle_epi8(mask_lut, lo), P##_shuffle_epi8(bit_lut, hi));           \
    bad = P##_or_si##S(bad, P##_cmpeq_epi8(valid, P##_setzero_si##S()));                                    \
    V shift = P##_shuffle_epi8(shift_lut, hi);                                                              \
    shift = P##_add_epi8(shift, P##_and_si##S(P##_cmpeq_epi8(in, slash), P##_set1_epi8(-3)));               \
    const V quads = P##_madd_epi16(P##_maddubs_epi16(P##_add_epi8(in, shift), merge_pairs), merge_quads)

__attribute__((target("ssse3")))
static int decode_ssse3(const uint8_t *src, size_t groups, float *dst) {
    const __m128i nibble = _mm_set1_epi8(0x0f);
    const __m128i slash = _mm_set1_epi8(0x2f);
    // Offset by high nibble: 2 → '+' (+19; '/' gets −3 more), 3 → digits, 4–5 → 'A'–'Z', 6–7 → 'a'–'z'.
    const __m128i shift_lut = _mm_setr_epi8(0, 0, 19, 4, -65, -65, -71, -71, 0, 0, 0, 0, 0, 0, 0, 0);
    // Valid high nibbles (as bits) for each low nibble.
    const __m128i mask_lut = _mm_setr_epi8(
        (char)0xA8, (char)0xF8, (char)0xF8, (char)0xF8, (char)0xF8, (char)0xF8, (char)0xF8, (char)0xF8,
        (char)0xF8, (char)0xF8, (char)0xF0, 0x54, 0x50, 0x50, 0x50, 0x54);
    const __m128i bit_lut = _mm_setr_epi8(0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, (char)0x80, 0, 0, 0, 0, 0, 0, 0, 0);
    const __m128i merge_pairs = _mm_set1_epi32(0x01400140);   // a·64 + b per character pair
    const __m128i merge_quads = _mm_set1_epi32(0x00011000);   // ab·4096 + cd per quantum
    const __m128i order = _mm_setr_epi8(2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1);
    const __m128i exponent = _mm_set1_epi32(0x7f800000);
    __m128i bad = _mm_setzero_si128();
    __m128i infinite = _mm_setzero_si128();
    uint8_t *out = (uint8_t *)dst;
    for (size_t g = 0; g < groups; g++) {
        const __m128i in = _mm_loadu_si128((const __m128i *)(src + 16 * g));
        DECODE_STEP(_mm, 128, __m128i, in, quads);
        const __m128i bytes = _mm_shuffle_epi8(quads, order);
        // Lanes 0–2 are the three floats (lane 3 is zero): exponent all ones = not finite.
        infinite = _mm_or_si128(infinite, _mm_cmpeq_epi32(_mm_and_si128(bytes, exponent), exponent));
        _mm_storel_epi64((__m128i *)(out + 12 * g), bytes);
        const int third = _mm_cvtsi128_si32(_mm_srli_si128(bytes, 8));
        __builtin_memcpy(out + 12 * g + 8, &third, 4);
    }
    return _mm_movemask_epi8(_mm_or_si128(bad, infinite)) == 0;
}

// The same with AVX2, 32 characters (24 bytes, 6 floats) per step: each 128-bit lane decodes as
// above, then a dword permutation closes the 4-byte gap between the lanes' 12 bytes.
__attribute__((target("avx2")))
static int decode_avx2(const uint8_t *src, size_t groups, float *dst) {
    const __m256i nibble = _mm256_set1_epi8(0x0f);
    const __m256i slash = _mm256_set1_epi8(0x2f);
    const __m256i shift_lut = _mm256_setr_epi8(
        0, 0, 19, 4, -65, -65, -71, -71, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 19, 4, -65, -65, -71, -71, 0, 0, 0, 0, 0, 0, 0, 0);
    const __m256i mask_lut = _mm256_setr_epi8(
        (char)0xA8, (char)0xF8, (char)0xF8, (char)0xF8, (char)0xF8, (char)0xF8, (char)0xF8, (char)0xF8,
        (char)0xF8, (char)0xF8, (char)0xF0, 0x54, 0x50, 0x50, 0x50, 0x54,
        (char)0xA8, (char)0xF8, (char)0xF8, (char)0xF8, (char)0xF8, (char)0xF8, (char)0xF8, (char)0xF8,
        (char)0xF8, (char)0xF8, (char)0xF0, 0x54, 0x50, 0x50, 0x50, 0x54);
    const __m256i bit_lut = _mm256_setr_epi8(
        0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, (char)0x80, 0, 0, 0, 0, 0, 0, 0, 0,
        0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, (char)0x80, 0, 0, 0, 0, 0, 0, 0, 0);
    const __m256i merge_pairs = _mm256_set1_epi32(0x01400140);
    const __m256i merge_quads = _mm256_set1_epi32(0x00011000);
    const __m256i order = _mm256_setr_epi8(
        2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1,
        2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1);
    const __m256i close_gap = _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 7, 7);
    const __m256i exponent = _mm256_set1_epi32(0x7f800000);
    __m256i bad = _mm256_setzero_si256();
    __m256i infinite = _mm256_setzero_si256();
    uint8_t *out = (uint8_t *)dst;
    size_t g = 0;
    for (; g + 2 <= groups; g += 2) {
        const __m256i in = _mm256_loadu_si256((const __m256i *)(src + 16 * g));
        DECODE_STEP(_mm256, 256, __m256i, in, quads);
        const __m256i bytes = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(quads, order), close_gap);
        // Dwords 0–5 are the six floats; 6 and 7 are zero.
        infinite = _mm256_or_si256(infinite, _mm256_cmpeq_epi32(_mm256_and_si256(bytes, exponent), exponent));
        _mm_storeu_si128((__m128i *)(out + 12 * g), _mm256_castsi256_si128(bytes));
        _mm_storel_epi64((__m128i *)(out + 12 * g + 16), _mm256_extracti128_si256(bytes, 1));
    }
    int ok = _mm256_movemask_epi8(_mm256_or_si256(bad, infinite)) == 0;
    if (g < groups) ok &= decode_ssse3(src + 16 * g, groups - g, (float *)(out + 12 * g));
    return ok;
}

int facescan_base64_floats(const uint8_t *src, size_t groups, float *dst) {
    if (__builtin_cpu_supports("avx2")) return decode_avx2(src, groups, dst);
    if (!__builtin_cpu_supports("ssse3")) return -1;
    return decode_ssse3(src, groups, dst);
}

#else

int facescan_base64_floats(const uint8_t *src, size_t groups, float *dst) {
    (void)src; (void)groups; (void)dst;
    return -1;
}

#endif
