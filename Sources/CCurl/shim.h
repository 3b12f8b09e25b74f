// Typed wrappers for libcurl's variadic calls, which Swift cannot call directly.
#ifndef SLIPSTREAM_CCURL_SHIM_H
#define SLIPSTREAM_CCURL_SHIM_H

#include <curl/curl.h>

/// What a write callback returns to make libcurl pause the transfer and hand the same bytes again on resume.
static const size_t slipstream_curl_writefunc_pause = CURL_WRITEFUNC_PAUSE;

/// curl_global_init's flags for everything (TLS included).
static const long slipstream_curl_global_all = CURL_GLOBAL_ALL;

/// curl_easy_pause's argument that resumes both directions.
static const int slipstream_curl_pause_cont = CURLPAUSE_CONT;

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

static inline CURLMcode slipstream_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

#endif
