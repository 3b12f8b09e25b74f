#ifndef SLIPSTREAM_CMPG123_SHIM_H
#define SLIPSTREAM_CMPG123_SHIM_H

#include <mpg123.h>

/* mpg123.h renames some functions with macros (mpg123_param -> mpg123_param2, and the
   largefile _64 suffixes on some builds); Swift does not see through them, so these typed
   wrappers call whatever the header means on this system. */

static inline int slipstream_mpg123_param(mpg123_handle *mh, enum mpg123_parms key, long value) {
    return mpg123_param(mh, key, value, 0.0);
}

static inline int slipstream_mpg123_decode_frame(mpg123_handle *mh, unsigned char **audio, size_t *bytes) {
    off_t frame = 0;
    return mpg123_decode_frame(mh, &frame, audio, bytes);
}

/* Bytes fed but not yet consumed by the parser, or -1 when mpg123 cannot tell. */
static inline long slipstream_mpg123_buffer_fill(mpg123_handle *mh) {
    long fill = 0;
    return mpg123_getstate(mh, MPG123_BUFFERFILL, &fill, NULL) == MPG123_OK ? fill : -1;
}

#endif
