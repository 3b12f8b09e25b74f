// OpenSSL's libcrypto message digests (EVP), for verifying downloads.
#ifndef SLIPSTREAM_CCRYPTO_SHIM_H
#define SLIPSTREAM_CCRYPTO_SHIM_H

#include <openssl/evp.h>

#endif
