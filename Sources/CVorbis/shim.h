#ifndef SLIPSTREAM_CVORBIS_SHIM_H
#define SLIPSTREAM_CVORBIS_SHIM_H

#include <vorbis/codec.h>

#endif
