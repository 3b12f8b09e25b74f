#ifndef SLIPSTREAM_LAZY_LIBRARY_H
#define SLIPSTREAM_LAZY_LIBRARY_H

// A C library loaded on first use (dlopen), not linked: a library that only some runs need (a
// sound server's client, a resampler, libcurl for a local file's run) then costs the other runs
// neither start-up time nor memory. Only its headers are used at build time. The shims of CPulse,
// CALSA, CSoxr and CCurl include this file by its relative path (it is not a module of its own):
//
//   SLIPSTREAM_LAZY_LIBRARY(alsa, "libasound.so.2")
//       -> slipstream_alsa_symbol("name"): the address of `name` in the first of the listed
//          libraries (at most four) that has it, or NULL when none is installed;
//       -> slipstream_alsa_loaded(): whether one of them is installed (loading them);
//   SLIPSTREAM_LAZY_FUNCTION(alsa, int, snd_pcm_close, -ENOSYS, (snd_pcm_t *pcm), (pcm))
//       -> slipstream_snd_pcm_close(pcm): calls the library's function, or (library not
//          installed) fails as it fails: here -ENOSYS; NULL, an error text or nothing elsewhere;
//   SLIPSTREAM_LAZY_VOID_FUNCTION(...) for a function that returns nothing;
//   SLIPSTREAM_LAZY_ADDRESS(alsa, snd_pcm_close): the function's address (or NULL), for a
//       wrapper of its own (a variadic function's typed wrappers).
//
// The statics these keep (handles, a once, cached addresses) have a copy in every object file
// that inlines them, which costs only a repeated dlopen (counted, cheap) and lookup; state that
// must be one per process (libcurl's global initialisation) is kept in Swift.

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

#define SLIPSTREAM_LAZY_LIBRARY(library, ...)                                                   \
    static inline void **slipstream_##library##_handles(void) {                                 \
        static void *handles[4];                                                                \
        return handles;                                                                         \
    }                                                                                           \
    static inline void slipstream_##library##_load(void) {                                      \
        static const char *const names[] = {__VA_ARGS__, NULL};                                 \
        void **handles = slipstream_##library##_handles();                                      \
        for (int index = 0; index < 4 && names[index]; index++)                                 \
            handles[index] = dlopen(names[index], RTLD_NOW | RTLD_LOCAL);                       \
    }                                                                                           \
    static inline int slipstream_##library##_loaded(void) {                                     \
        static pthread_once_t once = PTHREAD_ONCE_INIT;                                         \
        pthread_once(&once, slipstream_##library##_load);                                       \
        void **handles = slipstream_##library##_handles();                                      \
        return handles[0] || handles[1] || handles[2] || handles[3];                            \
    }                                                                                           \
    static inline void *slipstream_##library##_symbol(const char *name) {                       \
        slipstream_##library##_loaded();                                                        \
        void **handles = slipstream_##library##_handles();                                      \
        for (int index = 0; index < 4; index++) {                                               \
            void *function = handles[index] ? dlsym(handles[index], name) : NULL;               \
            if (function) return function;                                                      \
        }                                                                                       \
        return NULL;                                                                            \
    }

// The address of function `name` in `library`, looked up on the first call and kept (an
// expression: each use has its own cache); NULL when the library is not installed.
#define SLIPSTREAM_LAZY_ADDRESS(library, name)                                                  \
    ({                                                                                          \
        static __typeof__(&name) cached_;                                                       \
        __typeof__(&name) address_ = __atomic_load_n(&cached_, __ATOMIC_ACQUIRE);               \
        if (!address_) {                                                                        \
            address_ = (__typeof__(&name))slipstream_##library##_symbol(#name);                 \
            __atomic_store_n(&cached_, address_, __ATOMIC_RELEASE);                             \
        }                                                                                       \
        address_;                                                                               \
    })

#define SLIPSTREAM_LAZY_FUNCTION(library, type, name, failure, parameters, arguments)           \
    static inline type slipstream_##name parameters {                                           \
        __typeof__(&name) function = SLIPSTREAM_LAZY_ADDRESS(library, name);                    \
        return function ? function arguments : failure;                                         \
    }

#define SLIPSTREAM_LAZY_VOID_FUNCTION(library, name, parameters, arguments)                     \
    static inline void slipstream_##name parameters {                                           \
        __typeof__(&name) function = SLIPSTREAM_LAZY_ADDRESS(library, name);                    \
        if (function) function arguments;                                                       \
    }

#endif
