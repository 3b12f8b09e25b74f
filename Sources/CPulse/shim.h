#ifndef SLIPSTREAM_CPULSE_SHIM_H
#define SLIPSTREAM_CPULSE_SHIM_H

// PulseAudio's client libraries are loaded on first use (dlopen), not linked: libpulse pulls
// in some thirty libraries (D-Bus, X11, libsndfile and its codecs ...) that cost every run of
// `slipstream` ~15 ms of start-up and ~3.5 MB of memory, even `get` and runs that play to ALSA
// or a file. Only the headers are used at build time; each slipstream_pa_NAME function below
// calls the library's NAME, or (libraries not installed) fails as NAME fails: NULL, a negative
// number, or nothing.

#include <pulse/simple.h>
#include <pulse/error.h>
#include <pulse/context.h>
#include <pulse/mainloop.h>
#include "../CLazyLibrary/lazy_library.h"

SLIPSTREAM_LAZY_LIBRARY(pulse, "libpulse-simple.so.0", "libpulse.so.0")

/// Whether the PulseAudio client libraries could be loaded.
static inline int slipstream_pulse_available(void) {
    return slipstream_pulse_symbol("pa_simple_new") != NULL;
}

#define SLIPSTREAM_PULSE(type, name, failure, parameters, arguments) \
    SLIPSTREAM_LAZY_FUNCTION(pulse, type, name, failure, parameters, arguments)
#define SLIPSTREAM_PULSE_VOID(name, parameters, arguments) SLIPSTREAM_LAZY_VOID_FUNCTION(pulse, name, parameters, arguments)

SLIPSTREAM_PULSE(pa_simple *, pa_simple_new, NULL,
    (const char *server, const char *name, pa_stream_direction_t dir, const char *dev, const char *stream_name,
     const pa_sample_spec *ss, const pa_channel_map *map, const pa_buffer_attr *attr, int *error),
    (server, name, dir, dev, stream_name, ss, map, attr, error))
SLIPSTREAM_PULSE(int, pa_simple_write, -1, (pa_simple *s, const void *data, size_t bytes, int *error), (s, data, bytes, error))
SLIPSTREAM_PULSE(int, pa_simple_drain, -1, (pa_simple *s, int *error), (s, error))
SLIPSTREAM_PULSE(int, pa_simple_flush, -1, (pa_simple *s, int *error), (s, error))
SLIPSTREAM_PULSE(pa_usec_t, pa_simple_get_latency, (pa_usec_t)-1, (pa_simple *s, int *error), (s, error))
SLIPSTREAM_PULSE_VOID(pa_simple_free, (pa_simple *s), (s))
SLIPSTREAM_PULSE(const char *, pa_strerror, "the PulseAudio libraries are not installed", (int error), (error))
SLIPSTREAM_PULSE(pa_channel_map *, pa_channel_map_init_extend, NULL,
    (pa_channel_map *m, unsigned channels, pa_channel_map_def_t def), (m, channels, def))
SLIPSTREAM_PULSE(pa_mainloop *, pa_mainloop_new, NULL, (void), ())
SLIPSTREAM_PULSE_VOID(pa_mainloop_free, (pa_mainloop *m), (m))
SLIPSTREAM_PULSE(pa_mainloop_api *, pa_mainloop_get_api, NULL, (pa_mainloop *m), (m))
SLIPSTREAM_PULSE(int, pa_mainloop_prepare, -1, (pa_mainloop *m, int timeout), (m, timeout))
SLIPSTREAM_PULSE(int, pa_mainloop_poll, -1, (pa_mainloop *m), (m))
SLIPSTREAM_PULSE(int, pa_mainloop_dispatch, -1, (pa_mainloop *m), (m))
SLIPSTREAM_PULSE(pa_context *, pa_context_new, NULL, (pa_mainloop_api *api, const char *name), (api, name))
SLIPSTREAM_PULSE(int, pa_context_connect, -1,
    (pa_context *c, const char *server, pa_context_flags_t flags, const pa_spawn_api *api), (c, server, flags, api))
SLIPSTREAM_PULSE(pa_context_state_t, pa_context_get_state, PA_CONTEXT_FAILED, (const pa_context *c), (c))
SLIPSTREAM_PULSE_VOID(pa_context_disconnect, (pa_context *c), (c))
SLIPSTREAM_PULSE_VOID(pa_context_unref, (pa_context *c), (c))

#undef SLIPSTREAM_PULSE
#undef SLIPSTREAM_PULSE_VOID

#endif
