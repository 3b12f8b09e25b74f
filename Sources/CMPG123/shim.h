#ifndef SLIPSTREAM_CMPG123_SHIM_H
#define SLIPSTREAM_CMPG123_SHIM_H

#include <mpg123.h>

#endif
