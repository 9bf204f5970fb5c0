#ifndef PUSH_WORKER_SHA256_EXTENSIONS_H
#define PUSH_WORKER_SHA256_EXTENSIONS_H

#include <stddef.h>
#include <stdint.h>

/* SHA-256's 64 round constants (FIPS 180-4 4.2.2), for the compression here and Essentials' portable one. */
const uint32_t *sha256_round_constants(void);

/* Whether this CPU has the x86 SHA extensions (and the SSSE3 and SSE4.1 they are used with); 0 elsewhere. */
int sha256_extensions_available(void);

/*
 * SHA-256's compression of `count` 64-byte blocks at `blocks` into the eight working words `state`, with the x86 SHA
 * extensions. Only where sha256_extensions_available() says so.
 */
void sha256_extensions_compress(uint32_t state[8], const uint8_t *blocks, size_t count);

#endif
