#ifndef SLIPSTREAM_CFAAD_SHIM_H
#define SLIPSTREAM_CFAAD_SHIM_H

// libfaad2 is loaded on first use (dlopen), not linked: only an AAC stream needs it, and linking
// it cost every run of `slipstream` its load at start-up. Only the header is used at build time;
// each slipstream_NAME function below calls libfaad2's NAME, or (library not installed) fails as
// NAME fails: NULL, 0, -1 or nothing.
#include <neaacdec.h>
#include "../CLazyLibrary/lazy_library.h"

SLIPSTREAM_LAZY_LIBRARY(faad, "libfaad.so.2")

/// The message of a decoder that cannot start because libfaad2 is not installed.
static const char *const slipstream_faad_missing = "the libfaad2 library (libfaad2) is not installed";

SLIPSTREAM_LAZY_FUNCTION(faad, NeAACDecHandle, NeAACDecOpen, NULL, (void), ())
SLIPSTREAM_LAZY_VOID_FUNCTION(faad, NeAACDecClose, (NeAACDecHandle handle), (handle))
SLIPSTREAM_LAZY_FUNCTION(faad, NeAACDecConfigurationPtr, NeAACDecGetCurrentConfiguration, NULL, (NeAACDecHandle handle), (handle))
SLIPSTREAM_LAZY_FUNCTION(faad, unsigned char, NeAACDecSetConfiguration, 0,
    (NeAACDecHandle handle, NeAACDecConfigurationPtr configuration), (handle, configuration))
SLIPSTREAM_LAZY_FUNCTION(faad, long, NeAACDecInit, -1,
    (NeAACDecHandle handle, unsigned char *buffer, unsigned long size, unsigned long *rate, unsigned char *channels),
    (handle, buffer, size, rate, channels))
SLIPSTREAM_LAZY_FUNCTION(faad, char, NeAACDecInit2, -1,
    (NeAACDecHandle handle, unsigned char *configuration, unsigned long size, unsigned long *rate, unsigned char *channels),
    (handle, configuration, size, rate, channels))
SLIPSTREAM_LAZY_FUNCTION(faad, void *, NeAACDecDecode2, NULL,
    (NeAACDecHandle handle, NeAACDecFrameInfo *info, unsigned char *buffer, unsigned long size, void **output, unsigned long outputSize),
    (handle, info, buffer, size, output, outputSize))

#endif
