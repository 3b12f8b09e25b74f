#ifndef SLIPSTREAM_CALSA_SHIM_H
#define SLIPSTREAM_CALSA_SHIM_H

#include <alsa/asoundlib.h>
#include <stdarg.h>
#include <stdio.h>

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
    snd_lib_error_set_handler(slipstream_alsa_error_handler);
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
