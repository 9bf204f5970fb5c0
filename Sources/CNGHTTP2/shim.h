#ifndef PUSH_WORKER_CNGHTTP2_SHIM_H
#define PUSH_WORKER_CNGHTTP2_SHIM_H

/* What the transport on nghttp2 calls: nghttp2's sessions, OpenSSL's TLS, Linux's epoll and eventfd, and its
 * sockets. Macros and the packed `struct epoll_event` are wrapped in typed functions for Swift. */

#include <nghttp2/nghttp2.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

static inline long pw_ssl_ctx_set_min_tls12(SSL_CTX *context) {
    return SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION);
}
static inline long pw_ssl_ctx_set_modes(SSL_CTX *context) {
    return SSL_CTX_set_mode(context, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
}
static inline void pw_ssl_ctx_set_read_ahead(SSL_CTX *context) { SSL_CTX_set_read_ahead(context, 1); }
static inline long pw_ssl_set_server_name(SSL *ssl, const char *name) { return SSL_set_tlsext_host_name(ssl, name); }

/* A non-blocking, close-on-exec TCP socket of `family`, or -1 with `errno` set. In C because a clean build of the
 * HTTP2 module, its sources in folders, did not find `SOCK_NONBLOCK` and `SOCK_CLOEXEC` from Swift. */
static inline int pw_socket_nonblocking_stream(int family) {
    return socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
}

/* Registers `fd` in `epoll` for `events` with `data` as its tag, or changes its registration (`modify`). */
static inline int pw_epoll_control(int epoll, int operation, int fd, uint32_t events, uint64_t data) {
    struct epoll_event event = {.events = events, .data = {.u64 = data}};
    return epoll_ctl(epoll, operation, fd, &event);
}

/* Waits like `epoll_wait` and copies each ready registration's tag and events into `tags` and `events`. */
static inline int pw_epoll_wait(int epoll, uint64_t *tags, uint32_t *events, int capacity, int timeout) {
    struct epoll_event ready[256];
    if (capacity > 256) capacity = 256;
    int count = epoll_wait(epoll, ready, capacity, timeout);
    for (int index = 0; index < count; index++) {
        tags[index] = ready[index].data.u64;
        events[index] = ready[index].events;
    }
    return count;
}

#endif
