#ifndef SLIPSTREAM_COPUS_SHIM_H
#define SLIPSTREAM_COPUS_SHIM_H

#include <opus/opus_multistream.h>

/// opus_multistream_decoder_ctl(OPUS_SET_GAIN(gain)): the output gain in Q7.8 dB (the
/// request is variadic, which Swift cannot call).
static inline int slipstream_opus_set_gain(OpusMSDecoder *decoder, int gain) {
    return opus_multistream_decoder_ctl(decoder, OPUS_SET_GAIN(gain));
}

/// opus_multistream_decoder_ctl(OPUS_RESET_STATE): forgets the stream's state, as after a seek.
static inline int slipstream_opus_reset(OpusMSDecoder *decoder) {
    return opus_multistream_decoder_ctl(decoder, OPUS_RESET_STATE);
}

#endif
