// libcurl, loaded on first use (lazy_library.h) rather than linked: its forty-odd libraries
// (TLS, SSH, Kerberos, LDAP...) cost a run that plays a local file nothing, and a run that
// goes on the network loads them on a thread of its own while the rest starts
// (`HTTPEngine.prepare`). Swift calls libcurl through the
// `slipstream_curl_*` functions here (the `curl_*` ones are not linked), with typed wrappers
// for its variadic calls, which Swift cannot call directly.
#ifndef SLIPSTREAM_CCURL_SHIM_H
#define SLIPSTREAM_CCURL_SHIM_H

#include <curl/curl.h>
#include <pthread.h>
#include <stdlib.h>
#include "../CLazyLibrary/lazy_library.h"

SLIPSTREAM_LAZY_LIBRARY(curl, "libcurl.so.4")

SLIPSTREAM_LAZY_FUNCTION(curl, CURL *, curl_easy_init, NULL, (void), ())
SLIPSTREAM_LAZY_VOID_FUNCTION(curl, curl_easy_cleanup, (CURL *handle), (handle))
SLIPSTREAM_LAZY_FUNCTION(curl, CURLcode, curl_easy_pause, CURLE_FAILED_INIT, (CURL *handle, int bitmask), (handle, bitmask))
SLIPSTREAM_LAZY_FUNCTION(curl, const char *, curl_easy_strerror, "libcurl is not installed", (CURLcode code), (code))
SLIPSTREAM_LAZY_FUNCTION(curl, struct curl_slist *, curl_slist_append, NULL, (struct curl_slist *list, const char *text), (list, text))
SLIPSTREAM_LAZY_VOID_FUNCTION(curl, curl_slist_free_all, (struct curl_slist *list), (list))
SLIPSTREAM_LAZY_FUNCTION(curl, CURLM *, curl_multi_init, NULL, (void), ())
SLIPSTREAM_LAZY_FUNCTION(curl, CURLMcode, curl_multi_cleanup, CURLM_INTERNAL_ERROR, (CURLM *multi), (multi))
SLIPSTREAM_LAZY_FUNCTION(curl, CURLMcode, curl_multi_add_handle, CURLM_INTERNAL_ERROR, (CURLM *multi, CURL *handle), (multi, handle))
SLIPSTREAM_LAZY_FUNCTION(curl, CURLMcode, curl_multi_remove_handle, CURLM_INTERNAL_ERROR, (CURLM *multi, CURL *handle), (multi, handle))
SLIPSTREAM_LAZY_FUNCTION(curl, CURLMcode, curl_multi_perform, CURLM_INTERNAL_ERROR, (CURLM *multi, int *running), (multi, running))
SLIPSTREAM_LAZY_FUNCTION(curl, CURLMcode, curl_multi_poll, CURLM_INTERNAL_ERROR,
    (CURLM *multi, struct curl_waitfd *extra, unsigned int count, int timeout, int *ready), (multi, extra, count, timeout, ready))
SLIPSTREAM_LAZY_FUNCTION(curl, CURLMcode, curl_multi_wakeup, CURLM_INTERNAL_ERROR, (CURLM *multi), (multi))
SLIPSTREAM_LAZY_FUNCTION(curl, CURLMcode, curl_multi_timeout, CURLM_INTERNAL_ERROR, (CURLM *multi, long *milliseconds), (multi, milliseconds))
SLIPSTREAM_LAZY_FUNCTION(curl, CURLMsg *, curl_multi_info_read, NULL, (CURLM *multi, int *queued), (multi, queued))
SLIPSTREAM_LAZY_FUNCTION(curl, const char *, curl_multi_strerror, "libcurl is not installed", (CURLMcode code), (code))
SLIPSTREAM_LAZY_FUNCTION(curl, CURLSH *, curl_share_init, NULL, (void), ())
SLIPSTREAM_LAZY_FUNCTION(curl, CURLSHcode, curl_share_cleanup, CURLSHE_NOT_BUILT_IN, (CURLSH *share), (share))

/// Loads libcurl and runs curl_global_init: 1 when ready, 2 when curl_global_init failed, 3 when
/// libcurl is not installed. Once per process: Swift's `CurlGlobal` keeps the once, because a
/// static here has a copy in every object file that inlines the function holding it.
static inline int slipstream_curl_load_and_initialize(void) {
    __typeof__(&curl_global_init) initialize = SLIPSTREAM_LAZY_ADDRESS(curl, curl_global_init);
    return !initialize ? 3 : initialize(CURL_GLOBAL_ALL) == CURLE_OK ? 1 : 2;
}

/// What a write callback returns to make libcurl pause the transfer and hand the same bytes again on resume.
static const size_t slipstream_curl_writefunc_pause = CURL_WRITEFUNC_PAUSE;

/// curl_easy_pause's argument that resumes both directions.
static const int slipstream_curl_pause_cont = CURLPAUSE_CONT;

/// curl_easy_pause's argument that stops receiving.
static const int slipstream_curl_pause_recv = CURLPAUSE_RECV;

/// CURLOPT_HTTPAUTH's masks (unsigned long macros Swift does not import).
static const unsigned long slipstream_curlauth_any = CURLAUTH_ANY;
static const unsigned long slipstream_curlauth_basic = CURLAUTH_BASIC;
static const unsigned long slipstream_curlauth_digest = CURLAUTH_DIGEST;

/// CURLOPT_IPRESOLVE's values.
static const long slipstream_curl_ipresolve_v4 = CURL_IPRESOLVE_V4;
static const long slipstream_curl_ipresolve_v6 = CURL_IPRESOLVE_V6;

/// The size of the buffer CURLOPT_ERRORBUFFER needs.
static const int slipstream_curl_error_size = CURL_ERROR_SIZE;

static inline CURLcode slipstream_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    __typeof__(&curl_easy_setopt) set = SLIPSTREAM_LAZY_ADDRESS(curl, curl_easy_setopt);
    return set ? set(handle, option, value) : CURLE_FAILED_INIT;
}

static inline CURLcode slipstream_curl_easy_setopt_offset(CURL *handle, CURLoption option, curl_off_t value) {
    __typeof__(&curl_easy_setopt) set = SLIPSTREAM_LAZY_ADDRESS(curl, curl_easy_setopt);
    return set ? set(handle, option, value) : CURLE_FAILED_INIT;
}

static inline CURLcode slipstream_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    __typeof__(&curl_easy_setopt) set = SLIPSTREAM_LAZY_ADDRESS(curl, curl_easy_setopt);
    return set ? set(handle, option, value) : CURLE_FAILED_INIT;
}

static inline CURLcode slipstream_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    __typeof__(&curl_easy_setopt) set = SLIPSTREAM_LAZY_ADDRESS(curl, curl_easy_setopt);
    return set ? set(handle, option, value) : CURLE_FAILED_INIT;
}

static inline CURLcode slipstream_curl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    __typeof__(&curl_easy_setopt) set = SLIPSTREAM_LAZY_ADDRESS(curl, curl_easy_setopt);
    return set ? set(handle, option, value) : CURLE_FAILED_INIT;
}

static inline CURLcode slipstream_curl_easy_setopt_write_callback(CURL *handle, CURLoption option, curl_write_callback value) {
    __typeof__(&curl_easy_setopt) set = SLIPSTREAM_LAZY_ADDRESS(curl, curl_easy_setopt);
    return set ? set(handle, option, value) : CURLE_FAILED_INIT;
}

static inline CURLcode slipstream_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    __typeof__(&curl_easy_getinfo) get = SLIPSTREAM_LAZY_ADDRESS(curl, curl_easy_getinfo);
    return get ? get(handle, info, value) : CURLE_FAILED_INIT;
}

static inline CURLcode slipstream_curl_easy_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    __typeof__(&curl_easy_getinfo) get = SLIPSTREAM_LAZY_ADDRESS(curl, curl_easy_getinfo);
    return get ? get(handle, info, value) : CURLE_FAILED_INIT;
}

static inline CURLcode slipstream_curl_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value) {
    __typeof__(&curl_easy_getinfo) get = SLIPSTREAM_LAZY_ADDRESS(curl, curl_easy_getinfo);
    return get ? get(handle, info, value) : CURLE_FAILED_INIT;
}

static inline CURLcode slipstream_curl_easy_getinfo_offset(CURL *handle, CURLINFO info, curl_off_t *value) {
    __typeof__(&curl_easy_getinfo) get = SLIPSTREAM_LAZY_ADDRESS(curl, curl_easy_getinfo);
    return get ? get(handle, info, value) : CURLE_FAILED_INIT;
}

static inline CURLcode slipstream_curl_easy_setopt_sshkey_callback(CURL *handle, curl_sshkeycallback value) {
    __typeof__(&curl_easy_setopt) set = SLIPSTREAM_LAZY_ADDRESS(curl, curl_easy_setopt);
    return set ? set(handle, CURLOPT_SSH_KEYFUNCTION, value) : CURLE_FAILED_INIT;
}

/// CURLOPT_USE_SSL's value that makes FTP fail unless both its connections use TLS.
static const long slipstream_curlusessl_all = CURLUSESSL_ALL;

static inline CURLMcode slipstream_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    __typeof__(&curl_multi_setopt) set = SLIPSTREAM_LAZY_ADDRESS(curl, curl_multi_setopt);
    return set ? set(multi, option, value) : CURLM_INTERNAL_ERROR;
}

// MARK: A connection cache of its own, for transfers that must not reuse others' connections.

/// A share handle that holds a connection cache, for one thread's easy handles (no locks:
/// libcurl does not share connections between threads); NULL when libcurl or memory fails.
static inline CURLSH *slipstream_connection_share_new(void) {
    CURLSH *share = slipstream_curl_share_init();
    if (!share) return NULL;
    __typeof__(&curl_share_setopt) set = SLIPSTREAM_LAZY_ADDRESS(curl, curl_share_setopt);
    if (set(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT) != CURLSHE_OK) {
        slipstream_curl_share_cleanup(share);
        return NULL;
    }
    return share;
}

// MARK: A cookie store shared by many easy handles (CookieSession), on any threads.

/// A share handle that shares cookies, with the recursive mutex its lock callbacks use.
typedef struct {
    CURLSH *share;
    pthread_mutex_t mutex;
} slipstream_cookie_share;

static void slipstream_cookie_share_lock(CURL *handle, curl_lock_data data, curl_lock_access access, void *context) {
    (void)handle; (void)data; (void)access;
    pthread_mutex_lock(&((slipstream_cookie_share *)context)->mutex);
}

static void slipstream_cookie_share_unlock(CURL *handle, curl_lock_data data, void *context) {
    (void)handle; (void)data;
    pthread_mutex_unlock(&((slipstream_cookie_share *)context)->mutex);
}

/// A new cookie share, or NULL when libcurl or memory fails.
static inline slipstream_cookie_share *slipstream_cookie_share_new(void) {
    slipstream_cookie_share *shared = calloc(1, sizeof *shared);
    if (!shared) return NULL;
    shared->share = slipstream_curl_share_init();
    if (!shared->share) { free(shared); return NULL; }
    pthread_mutexattr_t attributes;
    pthread_mutexattr_init(&attributes);
    pthread_mutexattr_settype(&attributes, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&shared->mutex, &attributes);
    pthread_mutexattr_destroy(&attributes);
    __typeof__(&curl_share_setopt) set = SLIPSTREAM_LAZY_ADDRESS(curl, curl_share_setopt);
    set(shared->share, CURLSHOPT_LOCKFUNC, slipstream_cookie_share_lock);
    set(shared->share, CURLSHOPT_UNLOCKFUNC, slipstream_cookie_share_unlock);
    set(shared->share, CURLSHOPT_USERDATA, shared);
    set(shared->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_COOKIE);
    return shared;
}

/// Frees a cookie share no easy handle uses any more.
static inline void slipstream_cookie_share_free(slipstream_cookie_share *shared) {
    slipstream_curl_share_cleanup(shared->share);
    pthread_mutex_destroy(&shared->mutex);
    free(shared);
}

#endif
