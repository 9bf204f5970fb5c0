#ifndef PUSH_WORKER_CMICROHTTPD_SHIM_H
#define PUSH_WORKER_CMICROHTTPD_SHIM_H

#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

// Typed, non-variadic wrappers for MHD_start_daemon and a copying response, so Swift calls are type-checked.

/// Starts a daemon on an already listening socket `listen_fd` (which it then owns and closes), with its own
/// polling thread (epoll on Linux) and `thread_pool_size` workers. `connection_timeout_seconds` closes a
/// connection idle that long; `connection_memory_limit` bounds each connection's buffers, and with them the
/// request head; `connection_limit` bounds the connections held at once. Returns NULL when it cannot start.
static inline struct MHD_Daemon *pw_mhd_start_daemon(int listen_fd, unsigned int thread_pool_size,
                                                     unsigned int connection_timeout_seconds,
                                                     size_t connection_memory_limit,
                                                     unsigned int connection_limit,
                                                     MHD_AccessHandlerCallback handler, void *context) {
    return MHD_start_daemon(MHD_USE_AUTO_INTERNAL_THREAD, 0, NULL, NULL, handler, context,
                            MHD_OPTION_LISTEN_SOCKET, (MHD_socket)listen_fd,
                            MHD_OPTION_THREAD_POOL_SIZE, thread_pool_size,
                            MHD_OPTION_CONNECTION_TIMEOUT, connection_timeout_seconds,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, connection_memory_limit,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_END);
}

/// A response holding its own copy of `size` bytes at `data`.
static inline struct MHD_Response *pw_mhd_response_copying(size_t size, const void *data) {
    return MHD_create_response_from_buffer(size, (void *)data, MHD_RESPMEM_MUST_COPY);
}

#endif
