// The structural scan that finds where a JSON object ends, so that whole frames can be handed to
// parsers on other threads: only braces, quotes and backslashes matter, found 16 bytes at a time.
#include "facescan_simd.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

ptrdiff_t facescan_object_end(const uint8_t *p, size_t n, facescan_scan_state *state) {
    int32_t depth = state->depth;
    int32_t in_string = state->in_string;
    size_t i = 0;
    if (state->escape && n > 0) {  // the byte after a backslash that ended the previous piece
        state->escape = 0;
        i = 1;
    }
    while (i < n) {
#if defined(__SSE2__)
        const __m128i open = _mm_set1_epi8('{'), close = _mm_set1_epi8('}');
        const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
        int found = 0;
        while (i + 16 <= n) {
            __m128i v = _mm_loadu_si128((const __m128i *)(p + i));
            __m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, open), _mm_cmpeq_epi8(v, close)),
                                     _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)));
            int mask = _mm_movemask_epi8(m);
            if (mask) {
                i += (size_t)__builtin_ctz((unsigned)mask);
                found = 1;
                break;
            }
            i += 16;
        }
        if (!found)
#endif
        {
            while (i < n && p[i] != '{' && p[i] != '}' && p[i] != '"' && p[i] != '\\') i++;
            if (i == n) break;
        }
        uint8_t c = p[i];
        if (in_string) {
            if (c == '\\') {
                if (i + 1 >= n) {
                    state->escape = 1;
                    i = n;
                    break;
                }
                i += 2;
                continue;
            }
            if (c == '"') in_string = 0;
        } else if (c == '"') {
            in_string = 1;
        } else if (c == '{') {
            depth++;
        } else if (c == '}') {
            depth--;
            if (depth <= 0) {
                state->depth = 0;
                state->in_string = 0;
                return (ptrdiff_t)(i + 1);
            }
        }
        // A backslash outside a string is left to the parser, which refuses it.
        i++;
    }
    state->depth = depth;
    state->in_string = in_string;
    return -1;
}
