// Folding for most-significant-bit-first CRCs (FLAC's CRC-16, Ogg's CRC-32) with x86-64's
// carry-less multiply (PCLMULQDQ), sixteen bytes a step instead of one table lookup a byte.
//
// The CRC of a message M is M(x) * x^w mod P(x). Any polynomial congruent to M modulo P has the
// same CRC, so M is folded into 128 bits: a 128-bit block A = H x^64 + L that stands D bits
// before the end of what has been read so far equals, modulo P,
//     H * (x^(D+64) mod P) + L * (x^D mod P),
// two 64 x w-bit carry-less products, which fit in 128 bits and are XORed into the block D bits
// later. Four blocks are carried side by side (64 bytes a step, so that the multiplies of one
// step do not wait for each other) and joined at the end. What remains, 16 bytes congruent to
// the message, goes through the caller's table-driven CRC.
#ifndef SLIPSTREAM_CCARRYLESSCRC_SHIM_H
#define SLIPSTREAM_CCARRYLESSCRC_SHIM_H

#include <stddef.h>
#include <stdint.h>

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

/// Whether `slipstream_crc_fold` can run here: x86-64 with PCLMULQDQ and SSSE3.
static inline int slipstream_crc_fold_available(void) {
#if defined(__x86_64__)
    unsigned int a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    return (c & bit_PCLMUL) != 0 && (c & bit_SSSE3) != 0;
#else
    return 0;
#endif
}

#if defined(__x86_64__)
/// A block moved D bits later: `k` holds x^D mod P in its low half, x^(D+64) mod P in its high.
__attribute__((target("pclmul,ssse3"))) static inline __m128i slipstream_crc_fold_block_(__m128i a, __m128i k) {
    return _mm_xor_si128(_mm_clmulepi64_si128(a, k, 0x11), _mm_clmulepi64_si128(a, k, 0x00));
}

/// Sixteen bytes as a 128-bit polynomial, the first byte's first bit the highest coefficient.
__attribute__((target("pclmul,ssse3"))) static inline __m128i slipstream_crc_load_(const uint8_t *bytes) {
    const __m128i reverse = _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    return _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)bytes), reverse);
}

__attribute__((target("pclmul,ssse3"))) static inline void slipstream_crc_fold_x86_(
    const uint8_t *bytes, size_t blocks, uint32_t initial, unsigned width, const uint64_t *constants,
    uint8_t *residue) {
    const __m128i k128 = _mm_set_epi64x((long long)constants[1], (long long)constants[0]);
    const __m128i k256 = _mm_set_epi64x((long long)constants[3], (long long)constants[2]);
    const __m128i k384 = _mm_set_epi64x((long long)constants[5], (long long)constants[4]);
    const __m128i k512 = _mm_set_epi64x((long long)constants[7], (long long)constants[6]);
    // A CRC continued from `initial` is the CRC from zero of the message with `initial` XORed
    // into its first w bits.
    const __m128i start = _mm_set_epi64x((long long)((uint64_t)initial << (64 - width)), 0);
    __m128i a;
    if (blocks >= 8) {
        __m128i a0 = _mm_xor_si128(slipstream_crc_load_(bytes), start);
        __m128i a1 = slipstream_crc_load_(bytes + 16);
        __m128i a2 = slipstream_crc_load_(bytes + 32);
        __m128i a3 = slipstream_crc_load_(bytes + 48);
        bytes += 64;
        blocks -= 4;
        while (blocks >= 4) {
            a0 = _mm_xor_si128(slipstream_crc_fold_block_(a0, k512), slipstream_crc_load_(bytes));
            a1 = _mm_xor_si128(slipstream_crc_fold_block_(a1, k512), slipstream_crc_load_(bytes + 16));
            a2 = _mm_xor_si128(slipstream_crc_fold_block_(a2, k512), slipstream_crc_load_(bytes + 32));
            a3 = _mm_xor_si128(slipstream_crc_fold_block_(a3, k512), slipstream_crc_load_(bytes + 48));
            bytes += 64;
            blocks -= 4;
        }
        a = _mm_xor_si128(
            _mm_xor_si128(slipstream_crc_fold_block_(a0, k384), slipstream_crc_fold_block_(a1, k256)),
            _mm_xor_si128(slipstream_crc_fold_block_(a2, k128), a3));
    } else {
        a = _mm_xor_si128(slipstream_crc_load_(bytes), start);
        bytes += 16;
        blocks -= 1;
    }
    while (blocks > 0) {
        a = _mm_xor_si128(slipstream_crc_fold_block_(a, k128), slipstream_crc_load_(bytes));
        bytes += 16;
        blocks -= 1;
    }
    const __m128i reverse = _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    _mm_storeu_si128((__m128i *)residue, _mm_shuffle_epi8(a, reverse));
}
#endif

/// Folds `blocks` (at least 1) sixteen-byte blocks at `bytes` into the 16 bytes at `residue`,
/// whose CRC from zero is the blocks' CRC continued from `initial`. `width` is the CRC's width
/// in bits (at most 32); `constants` holds x^n mod P for n = 128, 192, 256, 320, 384, 448, 512,
/// 576. Only where `slipstream_crc_fold_available()`.
static inline void slipstream_crc_fold(
    const uint8_t *bytes, size_t blocks, uint32_t initial, unsigned width, const uint64_t *constants,
    uint8_t *residue) {
#if defined(__x86_64__)
    slipstream_crc_fold_x86_(bytes, blocks, initial, width, constants, residue);
#endif
}

#endif
