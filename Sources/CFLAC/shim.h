#ifndef SLIPSTREAM_CFLAC_SHIM_H
#define SLIPSTREAM_CFLAC_SHIM_H

#include <FLAC/stream_decoder.h>

#endif
