// OpenSSL's libcrypto through EVP: message digests, for verifying downloads; AES-128-CBC,
// for decrypting HLS segments.
#ifndef SLIPSTREAM_CCRYPTO_SHIM_H
#define SLIPSTREAM_CCRYPTO_SHIM_H

#include <openssl/evp.h>

#endif
