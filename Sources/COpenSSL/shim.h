#ifndef PUSH_WORKER_COPENSSL_SHIM_H
#define PUSH_WORKER_COPENSSL_SHIM_H

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/err.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/bn.h>
#include <openssl/sha.h>
#include <openssl/rand.h>

/* Whether `key` is an EC / RSA key; wraps the EVP_PKEY_EC / EVP_PKEY_RSA macros for Swift. */
static inline int copenssl_key_is_ec(const EVP_PKEY *key) { return EVP_PKEY_get_base_id(key) == EVP_PKEY_EC; }
static inline int copenssl_key_is_rsa(const EVP_PKEY *key) { return EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA; }

#endif
