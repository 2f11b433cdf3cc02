// Base64 → float32 with SSSE3, 16 characters (12 bytes, 3 floats) per step.
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
        const __m128i hi = _mm_and_si128(_mm_srli_epi32(in, 4), nibble);
        const __m128i lo = _mm_and_si128(in, nibble);
        const __m128i valid = _mm_and_si128(_mm_shuffle_epi8(mask_lut, lo), _mm_shuffle_epi8(bit_lut, hi));
        bad = _mm_or_si128(bad, _mm_cmpeq_epi8(valid, _mm_setzero_si128()));
        __m128i shift = _mm_shuffle_epi8(shift_lut, hi);
        shift = _mm_add_epi8(shift, _mm_and_si128(_mm_cmpeq_epi8(in, slash), _mm_set1_epi8(-3)));
        const __m128i values = _mm_add_epi8(in, shift);
        const __m128i pairs = _mm_maddubs_epi16(values, merge_pairs);
        const __m128i quads = _mm_madd_epi16(pairs, merge_quads);
        const __m128i bytes = _mm_shuffle_epi8(quads, order);
        // Lanes 0–2 are the three floats (lane 3 is zero): exponent all ones = not finite.
        infinite = _mm_or_si128(infinite, _mm_cmpeq_epi32(_mm_and_si128(bytes, exponent), exponent));
        _mm_storel_epi64((__m128i *)(out + 12 * g), bytes);
        const int third = _mm_cvtsi128_si32(_mm_srli_si128(bytes, 8));
        __builtin_memcpy(out + 12 * g + 8, &third, 4);
    }
    return _mm_movemask_epi8(_mm_or_si128(bad, infinite)) == 0;
}

int facescan_base64_floats(const uint8_t *src, size_t groups, float *dst) {
    if (!__builtin_cpu_supports("ssse3")) return -1;
    return decode_ssse3(src, groups, dst);
}

#else

int facescan_base64_floats(const uint8_t *src, size_t groups, float *dst) {
    (void)src; (void)groups; (void)dst;
    return -1;
}

#endif
