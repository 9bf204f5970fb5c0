#ifndef PUSH_WORKER_CMICROHTTPD_SHIM_H
#define PUSH_WORKER_CMICROHTTPD_SHIM_H

#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <string.h>
#include <microhttpd.h>

// Typed, non-variadic wrappers for MHD_start_daemon and a copying response, so Swift calls are type-checked.

/// Starts a daemon on an already listening socket `listen_fd` (which it then owns and closes), with its own
/// polling thread (epoll on Linux) and `thread_pool_size` workers. `connection_timeout_seconds` closes a
/// connection idle that long; `connection_memory_limit` bounds each connection's buffers, and with them the
/// request head; `connection_limit` bounds the connections held at once, `per_address_limit` those of one client
/// address (0: no such bound). Connections may be suspended while an answer is awaited elsewhere and resumed from
/// any thread; `completed` is told when each request ends (answered or not), `connections` when each connection
/// opens and closes, both with `context`. With `tls_cert_pem` and `tls_key_pem` (NUL-terminated PEM) the daemon
/// speaks TLS (GnuTLS); both NULL for plain HTTP. Returns NULL when it cannot start.
static inline struct MHD_Daemon *pw_mhd_start_daemon(int listen_fd, unsigned int thread_pool_size,
                                                     unsigned int connection_timeout_seconds,
                                                     size_t connection_memory_limit,
                                                     unsigned int connection_limit,
                                                     unsigned int per_address_limit,
                                                     MHD_AccessHandlerCallback handler,
                                                     MHD_RequestCompletedCallback completed,
                                                     MHD_NotifyConnectionCallback connections, void *context,
                                                     const char *tls_cert_pem, const char *tls_key_pem) {
    unsigned int flags = MHD_USE_AUTO_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME;
    if (tls_cert_pem != NULL && tls_key_pem != NULL) {
        return MHD_start_daemon(flags | MHD_USE_TLS, 0, NULL, NULL, handler, context,
                                MHD_OPTION_LISTEN_SOCKET, (MHD_socket)listen_fd,
                                MHD_OPTION_THREAD_POOL_SIZE, thread_pool_size,
                                MHD_OPTION_CONNECTION_TIMEOUT, connection_timeout_seconds,
                                MHD_OPTION_CONNECTION_MEMORY_LIMIT, connection_memory_limit,
                                MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                                MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_address_limit,
                                MHD_OPTION_NOTIFY_COMPLETED, completed, context,
                                MHD_OPTION_NOTIFY_CONNECTION, connections, context,
                                MHD_OPTION_HTTPS_MEM_CERT, tls_cert_pem,
                                MHD_OPTION_HTTPS_MEM_KEY, tls_key_pem,
                                MHD_OPTION_END);
    }
    return MHD_start_daemon(flags, 0, NULL, NULL, handler, context, MHD_OPTION_LISTEN_SOCKET, (MHD_socket)listen_fd,
                            MHD_OPTION_THREAD_POOL_SIZE, thread_pool_size,
                            MHD_OPTION_CONNECTION_TIMEOUT, connection_timeout_seconds,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, connection_memory_limit,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_address_limit,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, context,
                            MHD_OPTION_NOTIFY_CONNECTION, connections, context,
                            MHD_OPTION_END);
}

/// Whether this libmicrohttpd was built with TLS (Debian's is, over GnuTLS).
static inline int pw_mhd_supports_tls(void) {
    return MHD_is_feature_supported(MHD_FEATURE_TLS) == MHD_YES;
}

/// Copies the client's IP address of `connection` (4 bytes for IPv4, 16 for IPv6) into `out` (16 bytes) and
/// returns its length, or 0 when it is unknown.
static inline size_t pw_mhd_client_address(struct MHD_Connection *connection, uint8_t *out) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL) return 0;
    const struct sockaddr *address = info->client_addr;
    if (address->sa_family == AF_INET) {
        memcpy(out, &((const struct sockaddr_in *)address)->sin_addr, 4);
        return 4;
    }
    if (address->sa_family == AF_INET6) {
        memcpy(out, &((const struct sockaddr_in6 *)address)->sin6_addr, 16);
        return 16;
    }
    return 0;
}

/// The socket of `connection`, or -1 when it is unknown.
static inline int pw_mhd_connection_socket(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : (int)info->connect_fd;
}

/// Whether a connection callback's `code` tells that the connection opened (else it closed).
static inline int pw_mhd_connection_opened(enum MHD_ConnectionNotificationCode code) {
    return code == MHD_CONNECTION_NOTIFY_STARTED;
}

/// The value the connection callback stored for `connection` when it opened, or NULL.
static inline void *pw_mhd_socket_context(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info == NULL ? NULL : info->socket_context;
}

/// A response holding its own copy of `size` bytes at `data`.
static inline struct MHD_Response *pw_mhd_response_copying(size_t size, const void *data) {
    return MHD_create_response_from_buffer(size, (void *)data, MHD_RESPMEM_MUST_COPY);
}

#endif
