#ifndef SLIPSTREAM_CSOXR_SHIM_H
#define SLIPSTREAM_CSOXR_SHIM_H

// libsoxr is loaded on first use (dlopen), not linked: only a stream whose format changes, played
// to an output that keeps one format, resamples, and linking it (with the OpenMP runtime it
// pulls in) costs every run of `slipstream` ~0.25 ms of start-up and ~0.8 MB of memory. Only the
// header is used at build time; each slipstream_NAME function below calls the library's NAME,
// or (library not installed) fails as NAME fails: an error, NULL, or nothing.

#include <string.h>
#include <soxr.h>
#include "../CLazyLibrary/lazy_library.h"

SLIPSTREAM_LAZY_LIBRARY(soxr, "libsoxr.so.0")

static const char *const slipstream_soxr_missing = "the libsoxr library (libsoxr0) is not installed";

/// soxr_create, with the specs made by libsoxr's own constructors: floats in and out (interleaved),
/// `recipe` (e.g. SOXR_HQ) and one thread. Sets `*error` and returns NULL on failure.
static inline soxr_t slipstream_soxr_create(
    double input_rate, double output_rate, unsigned channels, unsigned long recipe, soxr_error_t *error) {
    __typeof__(&soxr_create) create = (__typeof__(&soxr_create))slipstream_soxr_symbol("soxr_create");
    __typeof__(&soxr_io_spec) io_spec = (__typeof__(&soxr_io_spec))slipstream_soxr_symbol("soxr_io_spec");
    __typeof__(&soxr_quality_spec) quality_spec =
        (__typeof__(&soxr_quality_spec))slipstream_soxr_symbol("soxr_quality_spec");
    __typeof__(&soxr_runtime_spec) runtime_spec =
        (__typeof__(&soxr_runtime_spec))slipstream_soxr_symbol("soxr_runtime_spec");
    if (!create || !io_spec || !quality_spec || !runtime_spec) {
        *error = slipstream_soxr_missing;
        return NULL;
    }
    soxr_io_spec_t io = io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I);
    soxr_quality_spec_t quality = quality_spec(recipe, 0);
    soxr_runtime_spec_t runtime = runtime_spec(1);
    *error = NULL;
    return create(input_rate, output_rate, channels, error, &io, &quality, &runtime);
}

#define SLIPSTREAM_SOXR(type, name, failure, parameters, arguments) \
    SLIPSTREAM_LAZY_FUNCTION(soxr, type, name, failure, parameters, arguments)

SLIPSTREAM_SOXR(soxr_error_t, soxr_process, slipstream_soxr_missing,
    (soxr_t resampler, soxr_in_t in, size_t ilen, size_t *idone, soxr_out_t out, size_t olen, size_t *odone),
    (resampler, in, ilen, idone, out, olen, odone))
SLIPSTREAM_SOXR(soxr_error_t, soxr_clear, slipstream_soxr_missing, (soxr_t resampler), (resampler))

SLIPSTREAM_LAZY_VOID_FUNCTION(soxr, soxr_delete, (soxr_t resampler), (resampler))

/// A libsoxr error as text.
static inline const char *slipstream_soxr_message(soxr_error_t error) {
    return error ? error : "no error";
}

#endif
