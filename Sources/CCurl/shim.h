// Typed wrappers for libcurl's variadic calls, which Swift cannot call directly.
#ifndef SLIPSTREAM_CCURL_SHIM_H
#define SLIPSTREAM_CCURL_SHIM_H

#include <curl/curl.h>
#include <pthread.h>
#include <stdlib.h>

/// What a write callback returns to make libcurl pause the transfer and hand the same bytes again on resume.
static const size_t slipstream_curl_writefunc_pause = CURL_WRITEFUNC_PAUSE;

/// curl_global_init's flags for everything (TLS included).
static const long slipstream_curl_global_all = CURL_GLOBAL_ALL;

/// curl_easy_pause's argument that resumes both directions.
static const int slipstream_curl_pause_cont = CURLPAUSE_CONT;

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
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode slipstream_curl_easy_setopt_offset(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode slipstream_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode slipstream_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode slipstream_curl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode slipstream_curl_easy_setopt_write_callback(CURL *handle, CURLoption option, curl_write_callback value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode slipstream_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode slipstream_curl_easy_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode slipstream_curl_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode slipstream_curl_easy_getinfo_offset(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode slipstream_curl_easy_setopt_sshkey_callback(CURL *handle, curl_sshkeycallback value) {
    return curl_easy_setopt(handle, CURLOPT_SSH_KEYFUNCTION, value);
}

/// CURLOPT_USE_SSL's value that makes FTP fail unless both its connections use TLS.
static const long slipstream_curlusessl_all = CURLUSESSL_ALL;

static inline CURLMcode slipstream_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
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
    shared->share = curl_share_init();
    if (!shared->share) { free(shared); return NULL; }
    pthread_mutexattr_t attributes;
    pthread_mutexattr_init(&attributes);
    pthread_mutexattr_settype(&attributes, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&shared->mutex, &attributes);
    pthread_mutexattr_destroy(&attributes);
    curl_share_setopt(shared->share, CURLSHOPT_LOCKFUNC, slipstream_cookie_share_lock);
    curl_share_setopt(shared->share, CURLSHOPT_UNLOCKFUNC, slipstream_cookie_share_unlock);
    curl_share_setopt(shared->share, CURLSHOPT_USERDATA, shared);
    curl_share_setopt(shared->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_COOKIE);
    return shared;
}

/// Frees a cookie share no easy handle uses any more.
static inline void slipstream_cookie_share_free(slipstream_cookie_share *shared) {
    curl_share_cleanup(shared->share);
    pthread_mutex_destroy(&shared->mutex);
    free(shared);
}

#endif
