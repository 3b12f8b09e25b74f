#ifndef SLIPSTREAM_CWEBSOCKETS_H
#define SLIPSTREAM_CWEBSOCKETS_H
// libwebsockets, loaded on first use (filled in by the server's work).
#endif
