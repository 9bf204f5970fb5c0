#ifndef PUSH_WORKER_CCURL_SHIM_H
#define PUSH_WORKER_CCURL_SHIM_H

#include <curl/curl.h>
#include <poll.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

// Typed, non-variadic wrappers for libcurl's variadic setters and getters, so Swift calls are type-checked.

/// The signature of CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION.
typedef size_t (*pw_curl_data_callback)(char *data, size_t size, size_t count, void *context);

static inline CURLcode pw_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode pw_curl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode pw_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode pw_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode pw_curl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode pw_curl_easy_setopt_data_callback(CURL *handle, CURLoption option,
                                                         pw_curl_data_callback value) {
    return curl_easy_setopt(handle, option, value);
}

/// The signature of CURLOPT_OPENSOCKETFUNCTION.
typedef curl_socket_t (*pw_curl_open_socket_callback)(void *context, curlsocktype purpose,
                                                      struct curl_sockaddr *address);

/// The signature of CURLOPT_PREREQFUNCTION.
typedef int (*pw_curl_prerequest_callback)(void *context, char *primary_ip, char *local_ip, int primary_port,
                                           int local_port);

static inline CURLcode pw_curl_easy_setopt_open_socket_callback(CURL *handle, pw_curl_open_socket_callback value) {
    return curl_easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, value);
}

static inline CURLcode pw_curl_easy_setopt_prerequest_callback(CURL *handle, pw_curl_prerequest_callback value) {
    return curl_easy_setopt(handle, CURLOPT_PREREQFUNCTION, value);
}

/// The socket libcurl's own opener would make for `address`, close-on-exec; CURL_SOCKET_BAD on failure.
static inline curl_socket_t pw_curl_open_socket(const struct curl_sockaddr *address) {
    int socket_fd = socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
    return socket_fd < 0 ? CURL_SOCKET_BAD : socket_fd;
}

static inline CURLMcode pw_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

static inline CURLcode pw_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode pw_curl_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode pw_curl_easy_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode pw_curl_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value) {
    return curl_easy_getinfo(handle, info, value);
}

/// The result code of a finished transfer's message (a union member Swift cannot name reliably).
static inline CURLcode pw_curl_msg_result(const CURLMsg *message) {
    return message->data.result;
}

// The event loop's own wake-up, for the turns it waits without libcurl (`IdleTurnPacer`): an eventfd.

/// A non-blocking, close-on-exec eventfd; -1 on failure.
static inline int pw_eventfd_create(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

/// Adds one to `fd`'s counter: a waiting `pw_eventfd_wait` returns.
static inline void pw_eventfd_signal(int fd) {
    uint64_t one = 1;
    ssize_t written = write(fd, &one, sizeof one);
    (void)written;
}

/// Waits until `fd` is signalled or `milliseconds` pass, then clears its counter.
static inline void pw_eventfd_wait(int fd, int milliseconds) {
    struct pollfd watched = {.fd = fd, .events = POLLIN};
    if (poll(&watched, 1, milliseconds) > 0) {
        uint64_t value;
        ssize_t count = read(fd, &value, sizeof value);
        (void)count;
    }
}

#endif
