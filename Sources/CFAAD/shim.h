#ifndef SLIPSTREAM_CFAAD_SHIM_H
#define SLIPSTREAM_CFAAD_SHIM_H

#include <neaacdec.h>

#endif
