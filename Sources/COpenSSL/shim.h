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
#include <openssl/hmac.h>
#include <openssl/core_names.h>
#include <openssl/params.h>

/* Whether `key` is an EC / RSA key; wraps the EVP_PKEY_EC / EVP_PKEY_RSA macros for Swift. */
static inline int copenssl_key_is_ec(const EVP_PKEY *key) { return EVP_PKEY_get_base_id(key) == EVP_PKEY_EC; }
static inline int copenssl_key_is_rsa(const EVP_PKEY *key) { return EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA; }

/* A new P-256 key pair (Web Push's per-message ECDH key); NULL on failure. Wraps the variadic EVP_PKEY_Q_keygen. */
static inline EVP_PKEY *copenssl_generate_p256(void) { return EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256"); }

/* The P-256 public key of an uncompressed point (65 bytes); NULL when it is not a point of the curve. Built from
   parameters, which is several times cheaper than decoding a SubjectPublicKeyInfo through OpenSSL 3's decoders. */
static inline EVP_PKEY *copenssl_p256_public_key(const unsigned char *point, size_t length) {
    EVP_PKEY_CTX *context = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
    if (context == NULL) return NULL;
    EVP_PKEY *key = NULL;
    OSSL_PARAM parameters[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, (char *)"prime256v1", 0),
        OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PUB_KEY, (void *)point, length),
        OSSL_PARAM_construct_end(),
    };
    if (EVP_PKEY_fromdata_init(context) != 1 || EVP_PKEY_fromdata(context, &key, EVP_PKEY_PUBLIC_KEY, parameters) != 1) {
        key = NULL;
    }
    EVP_PKEY_CTX_free(context);
    return key;
}

/* Writes `key`'s public point in uncompressed form (65 bytes for P-256) into `out`; returns its length, 0 on
   failure. */
static inline size_t copenssl_public_point(const EVP_PKEY *key, unsigned char *out, size_t capacity) {
    size_t length = 0;
    if (EVP_PKEY_get_octet_string_param(key, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, out, capacity, &length) != 1) {
        return 0;
    }
    return length;
}

#endif
