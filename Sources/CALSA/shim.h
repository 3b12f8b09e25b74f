#ifndef SLIPSTREAM_CALSA_SHIM_H
#define SLIPSTREAM_CALSA_SHIM_H

#include <alsa/asoundlib.h>

#endif
