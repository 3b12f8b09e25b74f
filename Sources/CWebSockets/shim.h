// libwebsockets 4.1 (Debian's libwebsockets17), loaded on first use (lazy_library.h) rather
// than linked: only `slipstream daemon` serves, and the other runs should not load it, nor the
// OpenSSL it initialises. Its types come from Debian's headers, whose lws_config.h fixes the
// layout of `lws_context_creation_info` and the WSI_TOKEN_* values: a runtime library of
// another minor version may differ, so `slipstream_lws_version_ok` refuses any but 4.1.x.
// Swift calls libwebsockets through the `slipstream_lws_*` functions here.
#ifndef SLIPSTREAM_CWEBSOCKETS_H
#define SLIPSTREAM_CWEBSOCKETS_H

#include <libwebsockets.h>
#include <stdlib.h>
#include <string.h>
#include "../CLazyLibrary/lazy_library.h"

SLIPSTREAM_LAZY_LIBRARY(lws, "libwebsockets.so.17")

SLIPSTREAM_LAZY_FUNCTION(lws, const char *, lws_get_library_version, NULL, (void), ())
SLIPSTREAM_LAZY_FUNCTION(lws, int, lws_service, -1, (struct lws_context *context, int timeout), (context, timeout))
SLIPSTREAM_LAZY_VOID_FUNCTION(lws, lws_cancel_service, (struct lws_context *context), (context))
SLIPSTREAM_LAZY_FUNCTION(lws, struct lws_context *, lws_get_context, NULL, (const struct lws *wsi), (wsi))
SLIPSTREAM_LAZY_FUNCTION(lws, void *, lws_context_user, NULL, (struct lws_context *context), (context))
SLIPSTREAM_LAZY_FUNCTION(lws, int, lws_hdr_total_length, 0, (struct lws *wsi, enum lws_token_indexes h), (wsi, h))
SLIPSTREAM_LAZY_FUNCTION(lws, int, lws_hdr_copy, -1, (struct lws *wsi, char *dest, int len, enum lws_token_indexes h),
    (wsi, dest, len, h))
SLIPSTREAM_LAZY_FUNCTION(lws, int, lws_hdr_fragment_length, 0, (struct lws *wsi, enum lws_token_indexes h, int frag_idx),
    (wsi, h, frag_idx))
SLIPSTREAM_LAZY_FUNCTION(lws, int, lws_hdr_copy_fragment, -1,
    (struct lws *wsi, char *dest, int len, enum lws_token_indexes h, int frag_idx), (wsi, dest, len, h, frag_idx))
SLIPSTREAM_LAZY_FUNCTION(lws, int, lws_hdr_custom_length, -1, (struct lws *wsi, const char *name, int nlen), (wsi, name, nlen))
SLIPSTREAM_LAZY_FUNCTION(lws, int, lws_hdr_custom_copy, -1, (struct lws *wsi, char *dst, int len, const char *name, int nlen),
    (wsi, dst, len, name, nlen))
SLIPSTREAM_LAZY_FUNCTION(lws, int, lws_add_http_common_headers, 1,
    (struct lws *wsi, unsigned int code, const char *content_type, lws_filepos_t content_len, unsigned char **p,
        unsigned char *end),
    (wsi, code, content_type, content_len, p, end))
SLIPSTREAM_LAZY_FUNCTION(lws, int, lws_add_http_header_by_name, 1,
    (struct lws *wsi, const unsigned char *name, const unsigned char *value, int length, unsigned char **p,
        unsigned char *end),
    (wsi, name, value, length, p, end))
SLIPSTREAM_LAZY_FUNCTION(lws, int, lws_finalize_write_http_header, 1,
    (struct lws *wsi, unsigned char *start, unsigned char **p, unsigned char *end), (wsi, start, p, end))
SLIPSTREAM_LAZY_FUNCTION(lws, int, lws_write, -1,
    (struct lws *wsi, unsigned char *buf, size_t len, enum lws_write_protocol protocol), (wsi, buf, len, protocol))
SLIPSTREAM_LAZY_FUNCTION(lws, int, lws_callback_on_writable, -1, (struct lws *wsi), (wsi))
SLIPSTREAM_LAZY_FUNCTION(lws, int, lws_http_transaction_completed, 1, (struct lws *wsi), (wsi))
SLIPSTREAM_LAZY_FUNCTION(lws, size_t, lws_remaining_packet_payload, 0, (struct lws *wsi), (wsi))
SLIPSTREAM_LAZY_FUNCTION(lws, int, lws_is_final_fragment, 1, (struct lws *wsi), (wsi))
SLIPSTREAM_LAZY_FUNCTION(lws, int, lws_frame_is_binary, 0, (struct lws *wsi), (wsi))
SLIPSTREAM_LAZY_VOID_FUNCTION(lws, lws_close_reason,
    (struct lws *wsi, enum lws_close_status status, unsigned char *buf, size_t len), (wsi, status, buf, len))
SLIPSTREAM_LAZY_VOID_FUNCTION(lws, lws_set_timeout, (struct lws *wsi, enum pending_timeout reason, int secs),
    (wsi, reason, secs))
SLIPSTREAM_LAZY_FUNCTION(lws, lws_sockfd_type, lws_get_socket_fd, -1, (struct lws *wsi), (wsi))
SLIPSTREAM_LAZY_VOID_FUNCTION(lws, lws_set_timer_usecs, (struct lws *wsi, lws_usec_t usecs), (wsi, usecs))

/// Whether libwebsockets is installed.
static inline int slipstream_lws_installed(void) { return slipstream_lws_loaded(); }

/// The version text of the installed libwebsockets, or NULL when it is not installed.
static inline const char *slipstream_lws_version(void) { return slipstream_lws_get_library_version(); }

/// Whether the installed libwebsockets is 4.1.x, the version whose headers this shim is built with.
static inline int slipstream_lws_version_ok(void) {
    const char *version = slipstream_lws_get_library_version();
    return version && strncmp(version, "4.1.", 4) == 0;
}

/// The bytes a buffer handed to `lws_write` must keep free before the data.
static const size_t slipstream_lws_pre = LWS_PRE;

/// `lws_set_timeout`'s seconds that close a connection on the next service turn.
static const int slipstream_lws_kill_async = LWS_TO_KILL_ASYNC;


/// A server made by `slipstream_lws_server_new`: the context and what it points to, which must
/// outlive it (the protocol table, the idle policy, the interface name).
typedef struct {
    struct lws_context *context;
    struct lws_protocols protocols[2];
    lws_retry_bo_t idle_policy;
    char *iface;
} slipstream_lws_server;

/// The settings of `slipstream_lws_server_new`.
typedef struct {
    /// The port, or 0 for any free one.
    int port;
    /// Whether to listen on every interface (IPv4 and IPv6); else on 127.0.0.1 alone.
    int listen_all;
    /// Seconds a connection may stay silent: between requests, before its headers, and (a
    /// WebSocket) before it answers a ping sent after half of it.
    unsigned int idle_seconds;
    /// Bytes of request headers a connection may send.
    unsigned short max_header_bytes;
    /// Connections served at once (headers are parsed on this many at most).
    unsigned short max_header_pool;
    /// The callback of every connection, and the `user` of the context.
    lws_callback_function *callback;
    void *user;
} slipstream_lws_settings;

/// Creates the context (binding its port) for `settings`; NULL when libwebsockets is missing
/// or the context cannot be made (its port cannot be bound).
static inline slipstream_lws_server *slipstream_lws_server_new(const slipstream_lws_settings *settings) {
    __typeof__(&lws_create_context) create = SLIPSTREAM_LAZY_ADDRESS(lws, lws_create_context);
    __typeof__(&lws_set_log_level) set_log_level = SLIPSTREAM_LAZY_ADDRESS(lws, lws_set_log_level);
    if (!create || !set_log_level) return NULL;
    set_log_level(0, NULL);
    slipstream_lws_server *server = calloc(1, sizeof *server);
    if (!server) return NULL;
    server->protocols[0].name = "slipstream";
    server->protocols[0].callback = settings->callback;
    server->protocols[0].rx_buffer_size = 65536;
    server->idle_policy.secs_since_valid_ping = (uint16_t)(settings->idle_seconds > 1 ? settings->idle_seconds / 2 : 1);
    server->idle_policy.secs_since_valid_hangup = (uint16_t)settings->idle_seconds;
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.port = settings->port;
    if (!settings->listen_all) {
        // In 4.1.6 with IPv6 on, "127.0.0.1" binds every interface: IPv6 off makes it bind 127.0.0.1.
        server->iface = strdup("127.0.0.1");
        info.iface = server->iface;
        info.options |= LWS_SERVER_OPTION_DISABLE_IPV6;
    }
    info.protocols = server->protocols;
    info.user = settings->user;
    info.gid = -1;
    info.uid = -1;
    info.keepalive_timeout = (int)settings->idle_seconds;
    info.timeout_secs = settings->idle_seconds;
    info.timeout_secs_ah_idle = settings->idle_seconds;
    info.max_http_header_data = settings->max_header_bytes;
    info.max_http_header_pool = settings->max_header_pool;
    info.retry_and_idle_policy = &server->idle_policy;
    info.options |= LWS_SERVER_OPTION_VALIDATE_UTF8;
    server->context = create(&info);
    if (!server->context) {
        free(server->iface);
        free(server);
        return NULL;
    }
    return server;
}

/// The port the server listens on (the one chosen when 0 was asked), or -1.
static inline int slipstream_lws_server_port(slipstream_lws_server *server) {
    __typeof__(&lws_get_vhost_by_name) vhost_by_name = SLIPSTREAM_LAZY_ADDRESS(lws, lws_get_vhost_by_name);
    __typeof__(&lws_get_vhost_listen_port) listen_port = SLIPSTREAM_LAZY_ADDRESS(lws, lws_get_vhost_listen_port);
    if (!vhost_by_name || !listen_port) return -1;
    struct lws_vhost *vhost = vhost_by_name(server->context, "default");
    return vhost ? listen_port(vhost) : -1;
}

/// Destroys the context (closing every connection, which calls back) and frees the server.
static inline void slipstream_lws_server_free(slipstream_lws_server *server) {
    __typeof__(&lws_context_destroy) destroy = SLIPSTREAM_LAZY_ADDRESS(lws, lws_context_destroy);
    if (destroy) destroy(server->context);
    free(server->iface);
    free(server);
}

#endif
