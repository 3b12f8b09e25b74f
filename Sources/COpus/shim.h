#ifndef SLIPSTREAM_COPUS_SHIM_H
#define SLIPSTREAM_COPUS_SHIM_H

// libopus is loaded on first use (dlopen), not linked: only an Ogg Opus stream needs it, and
// linking it cost every run of `slipstream` its load at start-up. Only the header is used at
// build time; each slipstream_NAME function below calls libopus's NAME, or (library not
// installed) fails as NAME fails: NULL with OPUS_INTERNAL_ERROR, OPUS_INTERNAL_ERROR or nothing.
#include <opus/opus_multistream.h>
#include "../CLazyLibrary/lazy_library.h"

SLIPSTREAM_LAZY_LIBRARY(opus, "libopus.so.0")

/// The message of a decoder that cannot start because libopus is not installed.
static const char *const slipstream_opus_missing = "the libopus library (libopus0) is not installed";

static inline OpusMSDecoder *slipstream_opus_multistream_decoder_create(
    opus_int32 rate, int channels, int streams, int coupled, const unsigned char *mapping, int *error) {
    __typeof__(&opus_multistream_decoder_create) create = SLIPSTREAM_LAZY_ADDRESS(opus, opus_multistream_decoder_create);
    if (create) return create(rate, channels, streams, coupled, mapping, error);
    *error = OPUS_INTERNAL_ERROR;
    return NULL;
}
SLIPSTREAM_LAZY_VOID_FUNCTION(opus, opus_multistream_decoder_destroy, (OpusMSDecoder *decoder), (decoder))
SLIPSTREAM_LAZY_FUNCTION(opus, int, opus_multistream_decode, OPUS_INTERNAL_ERROR,
    (OpusMSDecoder *decoder, const unsigned char *data, opus_int32 length, opus_int16 *pcm, int frames, int fec),
    (decoder, data, length, pcm, frames, fec))
SLIPSTREAM_LAZY_FUNCTION(opus, int, opus_multistream_decode_float, OPUS_INTERNAL_ERROR,
    (OpusMSDecoder *decoder, const unsigned char *data, opus_int32 length, float *pcm, int frames, int fec),
    (decoder, data, length, pcm, frames, fec))

/// opus_multistream_decoder_ctl(OPUS_SET_GAIN(gain)): the output gain in Q7.8 dB (the
/// request is variadic, which Swift cannot call).
static inline int slipstream_opus_set_gain(OpusMSDecoder *decoder, int gain) {
    __typeof__(&opus_multistream_decoder_ctl) control = SLIPSTREAM_LAZY_ADDRESS(opus, opus_multistream_decoder_ctl);
    return control ? control(decoder, OPUS_SET_GAIN(gain)) : OPUS_INTERNAL_ERROR;
}

/// opus_multistream_decoder_ctl(OPUS_RESET_STATE): forgets the stream's state, as after a seek.
static inline int slipstream_opus_reset(OpusMSDecoder *decoder) {
    __typeof__(&opus_multistream_decoder_ctl) control = SLIPSTREAM_LAZY_ADDRESS(opus, opus_multistream_decoder_ctl);
    return control ? control(decoder, OPUS_RESET_STATE) : OPUS_INTERNAL_ERROR;
}

#endif
