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

#endif
