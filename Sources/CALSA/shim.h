#ifndef SLIPSTREAM_CALSA_SHIM_H
#define SLIPSTREAM_CALSA_SHIM_H

#include <alsa/asoundlib.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include "../CLazyLibrary/lazy_library.h"

// libasound is loaded on first use (dlopen), not linked: most runs (`get`, `info`, play to
// PulseAudio or a file) never open an ALSA device, and loading it cost each of them ~0.3 MiB of
// memory. Each slipstream_NAME function below calls ALSA's NAME, or (library not installed)
// fails as NAME fails, with -ENOSYS: snd_strerror then says the library is missing.

SLIPSTREAM_LAZY_LIBRARY(alsa, "libasound.so.2")

SLIPSTREAM_LAZY_FUNCTION(alsa, int, snd_pcm_open, -ENOSYS,
    (snd_pcm_t **pcm, const char *name, snd_pcm_stream_t stream, int mode), (pcm, name, stream, mode))
SLIPSTREAM_LAZY_FUNCTION(alsa, int, snd_pcm_close, -ENOSYS, (snd_pcm_t *pcm), (pcm))
SLIPSTREAM_LAZY_FUNCTION(alsa, int, snd_pcm_hw_params_malloc, -ENOSYS, (snd_pcm_hw_params_t **params), (params))
SLIPSTREAM_LAZY_VOID_FUNCTION(alsa, snd_pcm_hw_params_free, (snd_pcm_hw_params_t *params), (params))
SLIPSTREAM_LAZY_FUNCTION(alsa, int, snd_pcm_hw_params_any, -ENOSYS,
    (snd_pcm_t *pcm, snd_pcm_hw_params_t *params), (pcm, params))
SLIPSTREAM_LAZY_FUNCTION(alsa, int, snd_pcm_hw_params_set_access, -ENOSYS,
    (snd_pcm_t *pcm, snd_pcm_hw_params_t *params, snd_pcm_access_t access), (pcm, params, access))
SLIPSTREAM_LAZY_FUNCTION(alsa, int, snd_pcm_hw_params_set_format, -ENOSYS,
    (snd_pcm_t *pcm, snd_pcm_hw_params_t *params, snd_pcm_format_t format), (pcm, params, format))
SLIPSTREAM_LAZY_FUNCTION(alsa, int, snd_pcm_hw_params_set_channels, -ENOSYS,
    (snd_pcm_t *pcm, snd_pcm_hw_params_t *params, unsigned int channels), (pcm, params, channels))
SLIPSTREAM_LAZY_FUNCTION(alsa, int, snd_pcm_hw_params_set_rate_near, -ENOSYS,
    (snd_pcm_t *pcm, snd_pcm_hw_params_t *params, unsigned int *rate, int *direction), (pcm, params, rate, direction))
SLIPSTREAM_LAZY_FUNCTION(alsa, int, snd_pcm_hw_params_set_period_time_near, -ENOSYS,
    (snd_pcm_t *pcm, snd_pcm_hw_params_t *params, unsigned int *time, int *direction), (pcm, params, time, direction))
SLIPSTREAM_LAZY_FUNCTION(alsa, int, snd_pcm_hw_params_set_buffer_time_near, -ENOSYS,
    (snd_pcm_t *pcm, snd_pcm_hw_params_t *params, unsigned int *time, int *direction), (pcm, params, time, direction))
SLIPSTREAM_LAZY_FUNCTION(alsa, int, snd_pcm_hw_params, -ENOSYS, (snd_pcm_t *pcm, snd_pcm_hw_params_t *params), (pcm, params))
SLIPSTREAM_LAZY_FUNCTION(alsa, int, snd_pcm_hw_params_can_pause, 0, (const snd_pcm_hw_params_t *params), (params))
SLIPSTREAM_LAZY_FUNCTION(alsa, snd_pcm_sframes_t, snd_pcm_writei, -ENOSYS,
    (snd_pcm_t *pcm, const void *buffer, snd_pcm_uframes_t size), (pcm, buffer, size))
SLIPSTREAM_LAZY_FUNCTION(alsa, int, snd_pcm_recover, -ENOSYS, (snd_pcm_t *pcm, int error, int silent), (pcm, error, silent))
SLIPSTREAM_LAZY_FUNCTION(alsa, int, snd_pcm_delay, -ENOSYS, (snd_pcm_t *pcm, snd_pcm_sframes_t *delay), (pcm, delay))
SLIPSTREAM_LAZY_FUNCTION(alsa, snd_pcm_state_t, snd_pcm_state, SND_PCM_STATE_DISCONNECTED, (snd_pcm_t *pcm), (pcm))
SLIPSTREAM_LAZY_FUNCTION(alsa, int, snd_pcm_pause, -ENOSYS, (snd_pcm_t *pcm, int enable), (pcm, enable))
SLIPSTREAM_LAZY_FUNCTION(alsa, int, snd_pcm_drop, -ENOSYS, (snd_pcm_t *pcm), (pcm))
SLIPSTREAM_LAZY_FUNCTION(alsa, int, snd_pcm_prepare, -ENOSYS, (snd_pcm_t *pcm), (pcm))
SLIPSTREAM_LAZY_FUNCTION(alsa, int, snd_pcm_drain, -ENOSYS, (snd_pcm_t *pcm), (pcm))

/// ALSA's text for `error`; for -ENOSYS while the library is not installed, that it is not.
static inline const char *slipstream_snd_strerror(int error) {
    __typeof__(&snd_strerror) function = (__typeof__(&snd_strerror))slipstream_alsa_symbol("snd_strerror");
    return function ? function(error) : "the ALSA library (libasound2) is not installed";
}

// ALSA reports its errors by calling a variadic handler (by default one printing "ALSA lib ..."
// to stderr). Swift can neither write nor call a variadic C function, so the handler lives here:
// it prints nothing and keeps the first message since the last slipstream_alsa_error_clear() on
// the calling thread (the first one names the cause: "cannot find card '0'"; later ones are the
// callers giving up: "Unknown PCM default").
//
// These are static: every object file that uses them gets its own copy of the buffer, so Swift
// must call them from one source file only (ALSAErrorLog.swift).

// The kept message: empty when none. A function-local static, since Swift emits the static
// functions of a header it imports but not its file-scope variables.
static inline char *slipstream_alsa_error_buffer(void) {
    static _Thread_local char text[256];
    return text;
}

static void slipstream_alsa_error_handler(const char *file, int line, const char *function, int err,
                                          const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err;
    char *text = slipstream_alsa_error_buffer();
    if (text[0]) return;
    va_list arguments;
    va_start(arguments, fmt);
    vsnprintf(text, 256, fmt, arguments);
    va_end(arguments);
}

/// Routes ALSA's error messages (process-wide) into the per-thread buffer instead of stderr.
static inline void slipstream_alsa_error_install(void) {
    __typeof__(&snd_lib_error_set_handler) install =
        (__typeof__(&snd_lib_error_set_handler))slipstream_alsa_symbol("snd_lib_error_set_handler");
    if (install) install(slipstream_alsa_error_handler);
}

/// Forgets the message kept on this thread.
static inline void slipstream_alsa_error_clear(void) {
    slipstream_alsa_error_buffer()[0] = 0;
}

/// The first message ALSA reported on this thread since the last clear, or NULL.
static inline const char *slipstream_alsa_error_message(void) {
    const char *text = slipstream_alsa_error_buffer();
    return text[0] ? text : NULL;
}

#endif
