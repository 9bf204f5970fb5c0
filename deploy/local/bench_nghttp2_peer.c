/*
 * The bare nghttp2 peer of the benchmark: bench_peer.c's requests from one thread driving nghttp2 and OpenSSL
 * directly, without libcurl — the prototype of NGHTTP2Transport (docs/design-decisions.md, "Two HTTP/2 transports").
 *
 *   bench_nghttp2_peer APNS_ORIGIN FCM_ORIGIN CA_FILE REQUESTS [STREAMS]
 *
 * Half the requests are APNs-shaped, half FCM-shaped, with bench_peer.c's paths, headers and bodies
 * (bench_requests.h; plus the `accept` and `content-length` libcurl adds). 2 connections per origin (non-blocking sockets, one `poll` per loop
 * turn), TLS with ALPN h2, the server's certificate verified against CA_FILE alone and its name against the origin's
 * host; STREAMS (default 200) requests in flight, each closed stream starting the next request on the least busy
 * connection of its origin. The design point: every loop turn, all the frames nghttp2 has ready for a connection
 * (`nghttp2_session_mem_send`) are gathered into one buffer and written with one `SSL_write`; received bytes go
 * `SSL_read` → `nghttp2_session_mem_recv`. A request fails unless its `:status` is 200. Prints one line in
 * bench_peer.c's format: requests, seconds, requests/s, CPU seconds (user + system), failures.
 * Built by bench.py with `cc -O2 bench_nghttp2_peer.c -lnghttp2 -lssl -lcrypto`; not part of the service.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <nghttp2/nghttp2.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench_requests.h"

enum { CONNECTIONS_PER_ORIGIN = 2, READ_BUFFER = 16384 };
/* A run stops, its unanswered requests failed, when no stream closes for this long (bench_peer.c's timeout). */
static const double STALL_SECONDS = 10.0;

/* A header field nghttp2 need not copy: `value` outlives the request. */
static nghttp2_nv header(const char *name, const char *value) {
    return (nghttp2_nv){(uint8_t *)name, (uint8_t *)value, strlen(name), strlen(value),
                        NGHTTP2_NV_FLAG_NO_COPY_NAME | NGHTTP2_NV_FLAG_NO_COPY_VALUE};
}

struct origin {
    char host[256];      /* without brackets for an IPv6 literal */
    char port[8];
    char authority[300]; /* host:port as written in the origin */
    int is_address;      /* an IP literal: verified as an IP address, no SNI */
};

enum state { CONNECTING, HANDSHAKING, READY, CLOSED };

struct connection {
    const struct origin *origin;
    int fd;
    SSL *ssl;
    nghttp2_session *session;
    enum state state;
    short tls_wants;     /* POLLIN/POLLOUT the last handshake or SSL_read step waits for */
    short write_blocked; /* nonzero: `output` must be written again, whole, when this poll event comes */
    unsigned char *output;
    size_t output_length, output_capacity;
    int active; /* streams open on it */
};

struct request {
    struct connection *connection; /* NULL: the slot is free */
    const char *body;
    size_t length, offset;
    int status;
    const char *path;    /* a literal or `path_buffer` */
    char path_buffer[96];
    char content_length[16];
};

struct peer {
    struct origin origins[2]; /* APNs, FCM */
    struct connection connections[2 * CONNECTIONS_PER_ORIGIN];
    struct request *requests; /* one slot per stream in flight */
    int *free_slots, free_count, slots;
    long total, next, done, failed;
    double last_progress;
};

/* Reads `https://HOST[:PORT]` (HOST may be `[IPv6]`) into `origin`; -1 if it is not one. */
static int parse_origin(const char *text, struct origin *origin) {
    const char *scheme = "https://";
    if (strncmp(text, scheme, strlen(scheme)) != 0) return -1;
    const char *host = text + strlen(scheme), *end;
    size_t authority_length = strcspn(host, "/");
    if (authority_length == 0 || authority_length >= sizeof origin->authority) return -1;
    memcpy(origin->authority, host, authority_length);
    origin->authority[authority_length] = '\0';
    const char *port;
    if (*host == '[') {
        host++;
        end = memchr(host, ']', authority_length - 1);
        if (end == NULL) return -1;
        port = end[1] == ':' ? end + 2 : NULL;
    } else {
        end = host + strcspn(host, ":/");
        port = *end == ':' ? end + 1 : NULL;
    }
    size_t host_length = (size_t)(end - host);
    if (host_length == 0 || host_length >= sizeof origin->host) return -1;
    memcpy(origin->host, host, host_length);
    origin->host[host_length] = '\0';
    size_t port_length = port ? strcspn(port, "/") : 0;
    if (port_length >= sizeof origin->port) return -1;
    snprintf(origin->port, sizeof origin->port, "%.*s", (int)port_length, port ? port : "");
    if (port_length == 0) strcpy(origin->port, "443");
    unsigned char address[sizeof(struct in6_addr)];
    origin->is_address =
        inet_pton(AF_INET, origin->host, address) == 1 || inet_pton(AF_INET6, origin->host, address) == 1;
    return 0;
}

/* nghttp2's data source: the request's body, as much as fits. */
static ssize_t read_body(nghttp2_session *session, int32_t stream_id, uint8_t *buffer, size_t length,
                         uint32_t *flags, nghttp2_data_source *source, void *user_data) {
    (void)session, (void)stream_id, (void)user_data;
    struct request *request = source->ptr;
    size_t count = request->length - request->offset;
    if (count > length) count = length;
    memcpy(buffer, request->body + request->offset, count);
    request->offset += count;
    if (request->offset == request->length) *flags |= NGHTTP2_DATA_FLAG_EOF;
    return (ssize_t)count;
}

static void fail_request(struct peer *peer) {
    peer->failed++;
    peer->done++;
    peer->last_progress = bench_now_seconds();
}

/* Submits the next request (APNs when its number is even) on the least busy open connection of its origin; one
 * whose origin has no open connection left fails at once. */
static void start_next(struct peer *peer) {
    while (peer->next < peer->total && peer->free_count > 0) {
        long index = peer->next++;
        int apns = index % 2 == 0;
        struct connection *best = NULL;
        for (int slot = 0; slot < CONNECTIONS_PER_ORIGIN; slot++) {
            struct connection *candidate = &peer->connections[(apns ? 0 : CONNECTIONS_PER_ORIGIN) + slot];
            if (candidate->state != CLOSED && (best == NULL || candidate->active < best->active)) best = candidate;
        }
        if (best == NULL) {
            fail_request(peer);
            continue;
        }
        int slot = peer->free_slots[--peer->free_count];
        struct request *request = &peer->requests[slot];
        request->connection = best;
        request->body = apns ? bench_apns_body : bench_fcm_body;
        request->length = apns ? sizeof bench_apns_body - 1 : sizeof bench_fcm_body - 1;
        request->offset = 0;
        request->status = 0;
        request->path = bench_path(request->path_buffer, sizeof request->path_buffer, index);
        snprintf(request->content_length, sizeof request->content_length, "%zu", request->length);

        nghttp2_nv headers[16];
        size_t count = 0;
        headers[count++] = header(":method", "POST");
        headers[count++] = header(":scheme", "https");
        headers[count++] = header(":authority", best->origin->authority);
        headers[count++] = header(":path", request->path);
        headers[count++] = header("accept", "*/*"); /* as libcurl adds */
        const struct bench_header *extra = apns ? bench_apns_headers : bench_fcm_headers;
        size_t extra_count = apns ? BENCH_APNS_HEADER_COUNT : BENCH_FCM_HEADER_COUNT;
        for (size_t line = 0; line < extra_count; line++) {
            headers[count++] = header(extra[line].name, extra[line].value);
        }
        headers[count++] = header("content-length", request->content_length);

        nghttp2_data_provider body = {.source = {.ptr = request}, .read_callback = read_body};
        int32_t stream = nghttp2_submit_request(best->session, NULL, headers, count, &body, request);
        if (stream < 0) {
            fprintf(stderr, "nghttp2 peer: %s\n", nghttp2_strerror(stream));
            request->connection = NULL;
            peer->free_slots[peer->free_count++] = slot;
            fail_request(peer);
            continue;
        }
        best->active++;
        return;
    }
}

static int on_header(nghttp2_session *session, const nghttp2_frame *frame, const uint8_t *name, size_t name_length,
                     const uint8_t *value, size_t value_length, uint8_t flags, void *user_data) {
    (void)flags, (void)user_data;
    if (frame->hd.type != NGHTTP2_HEADERS || name_length != 7 || memcmp(name, ":status", 7) != 0) return 0;
    struct request *request = nghttp2_session_get_stream_user_data(session, frame->hd.stream_id);
    if (request == NULL) return 0;
    int status = 0;
    for (size_t at = 0; at < value_length && at < 3; at++) {
        if (value[at] < '0' || value[at] > '9') return 0;
        status = status * 10 + (value[at] - '0');
    }
    request->status = value_length == 3 ? status : 0;
    return 0;
}

/* A closed stream settles its request (failed unless :status 200 and no error) and starts the next one. */
static int on_stream_close(nghttp2_session *session, int32_t stream_id, uint32_t error_code, void *user_data) {
    struct peer *peer = user_data;
    struct request *request = nghttp2_session_get_stream_user_data(session, stream_id);
    /* A closed connection's requests were settled then, their slots maybe reused since. */
    if (request == NULL || request->connection == NULL || request->connection->session != session) return 0;
    request->connection->active--;
    request->connection = NULL;
    peer->free_slots[peer->free_count++] = (int)(request - peer->requests);
    if (error_code != NGHTTP2_NO_ERROR || request->status != 200) peer->failed++;
    peer->done++;
    peer->last_progress = bench_now_seconds();
    start_next(peer);
    return 0;
}

/* Closes `connection` (the reason on stderr unless NULL); its open requests fail and new ones take their slots on
 * the origin's other connections. */
static void close_connection(struct peer *peer, struct connection *connection, const char *reason) {
    if (connection->state == CLOSED) return;
    if (reason) {
        fprintf(stderr, "nghttp2 peer: connection to %s closed: %s\n", connection->origin->authority, reason);
        ERR_print_errors_fp(stderr);
    }
    connection->state = CLOSED;
    int freed = 0;
    for (int slot = 0; slot < peer->slots; slot++) {
        if (peer->requests[slot].connection != connection) continue;
        peer->requests[slot].connection = NULL;
        peer->free_slots[peer->free_count++] = slot;
        fail_request(peer);
        freed++;
    }
    connection->active = 0;
    for (int request = 0; request < freed; request++) start_next(peer);
}

/* Moves a TLS step's result into `connection->tls_wants`: 0 done, 1 waiting for the socket, -1 failed. */
static int tls_wait(struct connection *connection, int result) {
    switch (SSL_get_error(connection->ssl, result)) {
    case SSL_ERROR_WANT_READ:
        connection->tls_wants = POLLIN;
        return 1;
    case SSL_ERROR_WANT_WRITE:
        connection->tls_wants = POLLOUT;
        return 1;
    default:
        return -1;
    }
}

/* One handshake step; once done, checks that the server chose h2. */
static void handshake(struct peer *peer, struct connection *connection) {
    ERR_clear_error();
    int result = SSL_do_handshake(connection->ssl);
    if (result != 1) {
        if (tls_wait(connection, result) < 0) {
            long verify = SSL_get_verify_result(connection->ssl);
            close_connection(peer, connection,
                             verify == X509_V_OK ? "TLS handshake failed" : X509_verify_cert_error_string(verify));
        }
        return;
    }
    const unsigned char *protocol = NULL;
    unsigned int protocol_length = 0;
    SSL_get0_alpn_selected(connection->ssl, &protocol, &protocol_length);
    if (protocol_length != 2 || memcmp(protocol, "h2", 2) != 0) {
        close_connection(peer, connection, "the server did not select h2 (ALPN)");
        return;
    }
    connection->state = READY;
    connection->tls_wants = POLLIN;
}

/* Feeds everything readable to nghttp2 (the stream callbacks settle requests and submit new ones). */
static void receive(struct peer *peer, struct connection *connection) {
    unsigned char buffer[READ_BUFFER];
    for (;;) {
        ERR_clear_error();
        int count = SSL_read(connection->ssl, buffer, sizeof buffer);
        if (count <= 0) {
            if (tls_wait(connection, count) < 0) close_connection(peer, connection, "closed by the server or failed");
            return;
        }
        ssize_t used = nghttp2_session_mem_recv(connection->session, buffer, (size_t)count);
        if (used < 0) {
            close_connection(peer, connection, nghttp2_strerror((int)used));
            return;
        }
    }
}

/* Gathers every frame nghttp2 has ready into `output` and writes it with one SSL_write; after a WANT_READ or
 * WANT_WRITE the same bytes are written again, whole, before anything new is gathered. */
static void flush(struct peer *peer, struct connection *connection) {
    if (!connection->write_blocked) {
        for (;;) {
            const uint8_t *data;
            ssize_t count = nghttp2_session_mem_send(connection->session, &data);
            if (count < 0) {
                close_connection(peer, connection, nghttp2_strerror((int)count));
                return;
            }
            if (count == 0) break;
            if (connection->output_capacity - connection->output_length < (size_t)count) {
                size_t capacity = connection->output_capacity ? connection->output_capacity * 2 : 65536;
                while (capacity - connection->output_length < (size_t)count) capacity *= 2;
                unsigned char *output = realloc(connection->output, capacity);
                if (output == NULL) {
                    close_connection(peer, connection, "out of memory");
                    return;
                }
                connection->output = output;
                connection->output_capacity = capacity;
            }
            memcpy(connection->output + connection->output_length, data, (size_t)count);
            connection->output_length += (size_t)count;
        }
    }
    if (connection->output_length == 0) return;
    ERR_clear_error();
    int written = SSL_write(connection->ssl, connection->output, (int)connection->output_length);
    if (written > 0) { /* without SSL_MODE_ENABLE_PARTIAL_WRITE, all of it */
        connection->output_length = 0;
        connection->write_blocked = 0;
        return;
    }
    switch (SSL_get_error(connection->ssl, written)) {
    case SSL_ERROR_WANT_READ:
        connection->write_blocked = POLLIN;
        break;
    case SSL_ERROR_WANT_WRITE:
        connection->write_blocked = POLLOUT;
        break;
    default:
        close_connection(peer, connection, "write failed");
    }
}

/* Starts a non-blocking connection to `origin` with its TLS and nghttp2 session; CLOSED if that fails at once. */
static void open_connection(struct peer *peer, struct connection *connection, const struct origin *origin,
                            SSL_CTX *context, const nghttp2_session_callbacks *callbacks) {
    memset(connection, 0, sizeof *connection);
    connection->origin = origin;
    connection->fd = -1;
    connection->state = CONNECTING;
    connection->tls_wants = POLLOUT;
    if (nghttp2_session_client_new(&connection->session, callbacks, peer) != 0) {
        connection->session = NULL;
        close_connection(peer, connection, "nghttp2_session_client_new failed");
        return;
    }
    nghttp2_settings_entry settings[] = {{NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
                                         {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, 100}};
    nghttp2_submit_settings(connection->session, NGHTTP2_FLAG_NONE, settings, sizeof settings / sizeof *settings);

    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *addresses = NULL;
    int resolved = getaddrinfo(origin->host, origin->port, &hints, &addresses);
    if (resolved != 0) {
        close_connection(peer, connection, gai_strerror(resolved));
        return;
    }
    connection->fd = socket(addresses->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int connected = connection->fd < 0 ? -1 : connect(connection->fd, addresses->ai_addr, addresses->ai_addrlen);
    freeaddrinfo(addresses);
    if (connected != 0 && errno != EINPROGRESS) {
        close_connection(peer, connection, strerror(errno));
        return;
    }
    int on = 1;
    setsockopt(connection->fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);

    connection->ssl = SSL_new(context);
    if (connection->ssl == NULL || SSL_set_fd(connection->ssl, connection->fd) != 1) {
        close_connection(peer, connection, "SSL_new failed");
        return;
    }
    SSL_set_connect_state(connection->ssl);
    SSL *ssl = connection->ssl;
    int named = origin->is_address ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), origin->host)
                                   : SSL_set_tlsext_host_name(ssl, origin->host) && SSL_set1_host(ssl, origin->host);
    if (named != 1) close_connection(peer, connection, "cannot set the host name to verify");
}

/* The socket became writable while connecting: the TCP connection is up (or failed); the handshake begins. */
static void finish_connect(struct peer *peer, struct connection *connection) {
    int error = 0;
    socklen_t length = sizeof error;
    if (getsockopt(connection->fd, SOL_SOCKET, SO_ERROR, &error, &length) != 0 || error != 0) {
        close_connection(peer, connection, strerror(error ? error : errno));
        return;
    }
    connection->state = HANDSHAKING;
    handshake(peer, connection);
}

static void free_connection(struct connection *connection) {
    if (connection->session) nghttp2_session_del(connection->session);
    if (connection->ssl) SSL_free(connection->ssl);
    if (connection->fd >= 0) close(connection->fd);
    free(connection->output);
}

int main(int argc, char **argv) {
    if (argc < 5) {
        fprintf(stderr, "usage: bench_nghttp2_peer APNS_ORIGIN FCM_ORIGIN CA_FILE REQUESTS [STREAMS]\n");
        return 2;
    }
    static struct peer peer;
    const char *ca_file = argv[3];
    peer.total = atol(argv[4]);
    peer.slots = argc > 5 ? atoi(argv[5]) : 200;
    if (peer.total <= 0 || peer.slots <= 0 || parse_origin(argv[1], &peer.origins[0]) != 0 ||
        parse_origin(argv[2], &peer.origins[1]) != 0) {
        fprintf(stderr, "nghttp2 peer: origins are https://HOST[:PORT], REQUESTS and STREAMS positive\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN); /* a peer closing the socket is a write error, not the end of the process */

    SSL_CTX *context = SSL_CTX_new(TLS_client_method());
    if (context == NULL || SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION) != 1 ||
        SSL_CTX_load_verify_locations(context, ca_file, NULL) != 1 ||
        SSL_CTX_set_alpn_protos(context, (const unsigned char *)"\x02h2", 3) != 0) {
        fprintf(stderr, "nghttp2 peer: cannot set up TLS with %s\n", ca_file);
        ERR_print_errors_fp(stderr);
        SSL_CTX_free(context);
        return 2;
    }
    SSL_CTX_set_verify(context, SSL_VERIFY_PEER, NULL);
    SSL_CTX_set_mode(context, SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    SSL_CTX_set_read_ahead(context, 1); /* one read per buffer, not two per TLS record (header, then body) */

    nghttp2_session_callbacks *callbacks;
    nghttp2_session_callbacks_new(&callbacks);
    nghttp2_session_callbacks_set_on_header_callback(callbacks, on_header);
    nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, on_stream_close);

    peer.requests = calloc((size_t)peer.slots, sizeof *peer.requests);
    peer.free_slots = calloc((size_t)peer.slots, sizeof *peer.free_slots);
    if (peer.requests == NULL || peer.free_slots == NULL) return 2;
    for (int slot = peer.slots - 1; slot >= 0; slot--) peer.free_slots[peer.free_count++] = slot;

    const int connection_count = 2 * CONNECTIONS_PER_ORIGIN;
    double began = bench_now_seconds(), cpu_began = bench_cpu_seconds();
    peer.last_progress = began;
    for (int index = 0; index < connection_count; index++) {
        open_connection(&peer, &peer.connections[index], &peer.origins[index / CONNECTIONS_PER_ORIGIN], context,
                        callbacks);
    }
    for (int slot = 0; slot < peer.slots; slot++) start_next(&peer);

    while (peer.done < peer.total) {
        struct pollfd polls[2 * CONNECTIONS_PER_ORIGIN];
        for (int index = 0; index < connection_count; index++) {
            struct connection *connection = &peer.connections[index];
            polls[index].fd = connection->state == CLOSED ? -1 : connection->fd;
            polls[index].events = (short)(connection->tls_wants | connection->write_blocked);
            polls[index].revents = 0;
        }
        if (poll(polls, (nfds_t)connection_count, 100) < 0 && errno != EINTR) {
            perror("nghttp2 peer: poll");
            break;
        }
        for (int index = 0; index < connection_count; index++) {
            struct connection *connection = &peer.connections[index];
            if (polls[index].revents == 0 || connection->state == CLOSED) continue;
            if (connection->state == CONNECTING) {
                finish_connect(&peer, connection);
            } else if (connection->state == HANDSHAKING) {
                handshake(&peer, connection);
            }
            if (connection->state == READY) receive(&peer, connection);
        }
        /* Responses on one connection start requests on others: every connection gathers and writes once. */
        for (int index = 0; index < connection_count; index++) {
            struct connection *connection = &peer.connections[index];
            if (connection->state != READY) continue;
            flush(&peer, connection);
            if (connection->state == READY && !nghttp2_session_want_read(connection->session) &&
                !nghttp2_session_want_write(connection->session)) {
                close_connection(&peer, connection, "the server ended the session (GOAWAY)");
            }
        }
        if (bench_now_seconds() - peer.last_progress > STALL_SECONDS) {
            fprintf(stderr, "nghttp2 peer: no answer for %.0f s; the %ld unanswered requests fail\n", STALL_SECONDS,
                    peer.total - peer.done);
            peer.failed += peer.total - peer.done;
            break;
        }
    }
    double seconds = bench_now_seconds() - began;
    printf("nghttp2 peer: %ld requests in %.2f s: %.0f requests/s, CPU %.2f s, failed %ld\n", peer.total, seconds,
           (double)peer.total / seconds, bench_cpu_seconds() - cpu_began, peer.failed);

    for (int index = 0; index < connection_count; index++) free_connection(&peer.connections[index]);
    nghttp2_session_callbacks_del(callbacks);
    SSL_CTX_free(context);
    free(peer.requests);
    free(peer.free_slots);
    return peer.failed == 0 ? 0 : 1;
}
