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

/* Web Push's ECDH on OpenSSL's EC_KEY / EC_POINT layer: a key pair per message on a group made once, without the
   provider lookup, parameter parsing and group construction that EVP_PKEY_Q_keygen and EVP_PKEY_fromdata repeat for
   every key. Deprecated in OpenSSL 3 but kept there; the warnings are confined to these wrappers. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

/* The P-256 group; the caller makes it once and shares it read-only. */
static inline EC_GROUP *copenssl_p256_group(void) { return EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1); }

/* A fresh key pair on `group`; NULL on failure. */
static inline EC_KEY *copenssl_ec_generate(const EC_GROUP *group) {
    EC_KEY *key = EC_KEY_new();
    if (key == NULL) return NULL;
    if (EC_KEY_set_group(key, group) != 1 || EC_KEY_generate_key(key) != 1) {
        EC_KEY_free(key);
        return NULL;
    }
    return key;
}

/* The key pair of a private scalar (`length` bytes, big-endian) on `group`; NULL on failure. */
static inline EC_KEY *copenssl_ec_private_key(const EC_GROUP *group, const unsigned char *scalar, size_t length) {
    EC_KEY *key = EC_KEY_new();
    EC_POINT *point = EC_POINT_new(group);
    int ok = key != NULL && point != NULL && EC_KEY_set_group(key, group) == 1
        && EC_KEY_oct2priv(key, scalar, length) == 1
        && EC_POINT_mul(group, point, EC_KEY_get0_private_key(key), NULL, NULL, NULL) == 1
        && EC_KEY_set_public_key(key, point) == 1;
    EC_POINT_free(point);
    if (!ok) {
        EC_KEY_free(key);
        return NULL;
    }
    return key;
}

static inline void copenssl_ec_key_free(EC_KEY *key) { EC_KEY_free(key); }

/* `key`'s public point, uncompressed, into `out`; returns its length, 0 on failure. */
static inline size_t copenssl_ec_public_point(const EC_KEY *key, unsigned char *out, size_t capacity) {
    return EC_POINT_point2oct(EC_KEY_get0_group(key), EC_KEY_get0_public_key(key), POINT_CONVERSION_UNCOMPRESSED, out,
                              capacity, NULL);
}

/* The point of an encoding on `group`; NULL when it is none or not on the curve. */
static inline EC_POINT *copenssl_ec_point(const EC_GROUP *group, const unsigned char *octets, size_t length) {
    EC_POINT *point = EC_POINT_new(group);
    if (point != NULL && EC_POINT_oct2point(group, point, octets, length, NULL) != 1) {
        EC_POINT_free(point);
        return NULL;
    }
    return point;
}

/* ECDH: the x coordinate of `key`'s scalar times `peer`, 32 bytes into `out`; 1 on success. */
static inline int copenssl_ecdh(const EC_KEY *key, const EC_POINT *peer, unsigned char *out) {
    return ECDH_compute_key(out, 32, peer, key, NULL) == 32;
}

#pragma GCC diagnostic pop

/* An HMAC-SHA-256 context with its digest set, to be duplicated for each use (`copenssl_hmac`); NULL on failure. */
static inline EVP_MAC_CTX *copenssl_hmac_sha256_template(void) {
    EVP_MAC *mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
    if (mac == NULL) return NULL;
    EVP_MAC_CTX *context = EVP_MAC_CTX_new(mac);
    EVP_MAC_free(mac);
    OSSL_PARAM parameters[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)"SHA256", 0),
        OSSL_PARAM_construct_end(),
    };
    if (context == NULL || EVP_MAC_CTX_set_params(context, parameters) != 1) {
        EVP_MAC_CTX_free(context);
        return NULL;
    }
    return context;
}

/* HMAC-SHA-256 of `message` under `key` with a copy of `template`, 32 bytes into `out`; 1 on success. */
static inline int copenssl_hmac(const EVP_MAC_CTX *template, const unsigned char *key, size_t key_length,
                                const unsigned char *message, size_t length, unsigned char *out) {
    EVP_MAC_CTX *context = EVP_MAC_CTX_dup(template);
    size_t written = 0;
    int ok = context != NULL && EVP_MAC_init(context, key, key_length, NULL) == 1
        && EVP_MAC_update(context, message, length) == 1 && EVP_MAC_final(context, out, &written, 32) == 1
        && written == 32;
    EVP_MAC_CTX_free(context);
    return ok;
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
