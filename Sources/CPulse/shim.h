#ifndef SLIPSTREAM_CPULSE_SHIM_H
#define SLIPSTREAM_CPULSE_SHIM_H

#include <pulse/simple.h>
#include <pulse/error.h>
#include <pulse/context.h>
#include <pulse/mainloop.h>

#endif
