#ifndef SLIPSTREAM_CFLAC_SHIM_H
#define SLIPSTREAM_CFLAC_SHIM_H

// libFLAC is loaded on first use (dlopen), not linked: only a FLAC stream needs it, and linking
// it cost every run of `slipstream` its load at start-up. Only the header is used at build time;
// each slipstream_NAME function below calls libFLAC's NAME, or (library not installed) fails as
// NAME fails: NULL, false, an error status, or nothing.
#include <FLAC/stream_decoder.h>
#include "../CLazyLibrary/lazy_library.h"

SLIPSTREAM_LAZY_LIBRARY(flac, "libFLAC.so.12")

/// The message of a decoder that cannot start because libFLAC is not installed.
static const char *const slipstream_flac_missing = "the libFLAC library (libflac12) is not installed";

SLIPSTREAM_LAZY_FUNCTION(flac, FLAC__StreamDecoder *, FLAC__stream_decoder_new, NULL, (void), ())
SLIPSTREAM_LAZY_VOID_FUNCTION(flac, FLAC__stream_decoder_delete, (FLAC__StreamDecoder *decoder), (decoder))
SLIPSTREAM_LAZY_FUNCTION(flac, FLAC__StreamDecoderInitStatus, FLAC__stream_decoder_init_stream,
    FLAC__STREAM_DECODER_INIT_STATUS_ERROR_OPENING_FILE,
    (FLAC__StreamDecoder *decoder, FLAC__StreamDecoderReadCallback read, FLAC__StreamDecoderSeekCallback seek,
        FLAC__StreamDecoderTellCallback tell, FLAC__StreamDecoderLengthCallback length, FLAC__StreamDecoderEofCallback eof,
        FLAC__StreamDecoderWriteCallback write, FLAC__StreamDecoderMetadataCallback metadata,
        FLAC__StreamDecoderErrorCallback error, void *client),
    (decoder, read, seek, tell, length, eof, write, metadata, error, client))
SLIPSTREAM_LAZY_FUNCTION(flac, FLAC__bool, FLAC__stream_decoder_process_until_end_of_metadata, false,
    (FLAC__StreamDecoder *decoder), (decoder))
SLIPSTREAM_LAZY_FUNCTION(flac, FLAC__bool, FLAC__stream_decoder_process_single, false, (FLAC__StreamDecoder *decoder), (decoder))
SLIPSTREAM_LAZY_FUNCTION(flac, FLAC__StreamDecoderState, FLAC__stream_decoder_get_state, FLAC__STREAM_DECODER_UNINITIALIZED,
    (const FLAC__StreamDecoder *decoder), (decoder))
SLIPSTREAM_LAZY_FUNCTION(flac, FLAC__bool, FLAC__stream_decoder_flush, false, (FLAC__StreamDecoder *decoder), (decoder))

#endif
