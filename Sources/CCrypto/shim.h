// OpenSSL's libcrypto through EVP: message digests, for verifying downloads; AES-128-CBC,
// for decrypting HLS segments. Loaded on first use (dlopen), not linked: most runs need neither,
// and linking it cost every run of `slipstream` its load at start-up (a run on the network loads
// it anyway, with libcurl, on the HTTP engine's thread). Only the header is used at build time;
// each slipstream_NAME function below calls libcrypto's NAME, or (library not installed) fails
// as NAME fails: NULL, 0 or nothing.
#ifndef SLIPSTREAM_CCRYPTO_SHIM_H
#define SLIPSTREAM_CCRYPTO_SHIM_H

#include <openssl/evp.h>
#include "../CLazyLibrary/lazy_library.h"

SLIPSTREAM_LAZY_LIBRARY(crypto, "libcrypto.so.3")

/// The message of what cannot start because libcrypto is not installed.
static const char *const slipstream_crypto_missing = "OpenSSL's libcrypto (libssl3) is not installed";

SLIPSTREAM_LAZY_FUNCTION(crypto, const EVP_MD *, EVP_sha256, NULL, (void), ())
SLIPSTREAM_LAZY_FUNCTION(crypto, const EVP_MD *, EVP_sha1, NULL, (void), ())
SLIPSTREAM_LAZY_FUNCTION(crypto, const EVP_MD *, EVP_md5, NULL, (void), ())
SLIPSTREAM_LAZY_FUNCTION(crypto, EVP_MD_CTX *, EVP_MD_CTX_new, NULL, (void), ())
SLIPSTREAM_LAZY_VOID_FUNCTION(crypto, EVP_MD_CTX_free, (EVP_MD_CTX *context), (context))
SLIPSTREAM_LAZY_FUNCTION(crypto, int, EVP_DigestInit_ex, 0, (EVP_MD_CTX *context, const EVP_MD *type, ENGINE *engine),
    (context, type, engine))
SLIPSTREAM_LAZY_FUNCTION(crypto, int, EVP_DigestUpdate, 0, (EVP_MD_CTX *context, const void *data, size_t count),
    (context, data, count))
SLIPSTREAM_LAZY_FUNCTION(crypto, int, EVP_DigestFinal_ex, 0, (EVP_MD_CTX *context, unsigned char *digest, unsigned int *size),
    (context, digest, size))
SLIPSTREAM_LAZY_FUNCTION(crypto, const EVP_CIPHER *, EVP_aes_128_cbc, NULL, (void), ())
SLIPSTREAM_LAZY_FUNCTION(crypto, EVP_CIPHER_CTX *, EVP_CIPHER_CTX_new, NULL, (void), ())
SLIPSTREAM_LAZY_VOID_FUNCTION(crypto, EVP_CIPHER_CTX_free, (EVP_CIPHER_CTX *context), (context))
SLIPSTREAM_LAZY_FUNCTION(crypto, int, EVP_DecryptInit_ex, 0,
    (EVP_CIPHER_CTX *context, const EVP_CIPHER *cipher, ENGINE *engine, const unsigned char *key, const unsigned char *iv),
    (context, cipher, engine, key, iv))
SLIPSTREAM_LAZY_FUNCTION(crypto, int, EVP_DecryptUpdate, 0,
    (EVP_CIPHER_CTX *context, unsigned char *out, int *written, const unsigned char *in, int count),
    (context, out, written, in, count))
SLIPSTREAM_LAZY_FUNCTION(crypto, int, EVP_DecryptFinal_ex, 0, (EVP_CIPHER_CTX *context, unsigned char *out, int *written),
    (context, out, written))

#endif
