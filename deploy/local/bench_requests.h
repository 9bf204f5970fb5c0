/*
 * What the benchmark's C peers (bench_peer.c, bench_nghttp2_peer.c) send, and how they time it: the
 * worker's APNs and FCM request shapes — headers (a bearer token each) and ~500- and ~600-byte bodies — and the
 * wall and CPU clocks of their summary line. bench_node_peer.mjs sends the same.
 */
#ifndef BENCH_REQUESTS_H
#define BENCH_REQUESTS_H

#include <stdio.h>
#include <sys/resource.h>
#include <time.h>

struct bench_header {
    const char *name, *value;
};

static const struct bench_header bench_apns_headers[] = {
    {"content-type", "application/json"},
    {"apns-push-type", "alert"},
    {"apns-topic", "com.example.chat"},
    {"apns-priority", "10"},
    {"apns-expiration", "1800000000"},
    {"apns-collapse-id", "r-42"},
    {"apns-id", "6c7a1b52-3f4e-4d5a-9b8c-7d6e5f4a3b2c"},
    {"authorization", "bearer eyJhbGciOiJFUzI1NiIsImtpZCI6IktFWSJ9.e30.c2lnbmF0dXJl"},
};
enum { BENCH_APNS_HEADER_COUNT = sizeof bench_apns_headers / sizeof *bench_apns_headers };

static const struct bench_header bench_fcm_headers[] = {
    {"content-type", "application/json"},
    {"authorization", "Bearer ya29.bench-access-token"},
};
enum { BENCH_FCM_HEADER_COUNT = sizeof bench_fcm_headers / sizeof *bench_fcm_headers };

static const char bench_apns_body[] =
    "{\"aps\":{\"alert\":{\"loc-key\":\"im_loc_text\",\"loc-args\":[\"Alice\",\"Are we still on for lunch "
    "tomorrow? I booked the place near the office for twelve.\"],\"title\":\"Team\",\"body\":\"Alice: Are we still "
    "on for lunch tomorrow? I booked the place near the office for twelve.\"},\"sound\":\"default\",\"badge\":3,"
    "\"thread-id\":\"r-42\",\"mutable-content\":1},\"type\":\"text\",\"room\":\"r-42\",\"message\":\"m-1000\"}";

static const char bench_fcm_body[] =
    "{\"message\":{\"token\":\"fcm-token-0001\",\"notification\":{\"title\":\"Team\",\"body\":\"Alice: Are we "
    "still on for lunch tomorrow? I booked the place near the office for twelve.\"},\"android\":{\"collapse_key\":"
    "\"r-42\",\"ttl\":\"3600s\",\"priority\":\"HIGH\",\"notification\":{\"body_loc_key\":\"im_loc_text\","
    "\"body_loc_args\":[\"Alice\",\"Are we still on for lunch tomorrow?\"],\"click_action\":\"push_chatroom\","
    "\"notification_count\":3,\"tag\":\"r-42\"}},\"data\":{\"loc-key\":\"im_loc_text\",\"type\":\"text\","
    "\"payload\":\"{}\"}}}";

/* The request path of request number `index` (APNs when even: a device token made of the number) into `path`. */
static inline const char *bench_path(char *path, size_t size, long index) {
    if (index % 2 != 0) return "/v1/projects/bench-project/messages:send";
    snprintf(path, size, "/3/device/%064lx", (unsigned long)index + 1);
    return path;
}

static inline double bench_now_seconds(void) {
    struct timespec time;
    clock_gettime(CLOCK_MONOTONIC, &time);
    return (double)time.tv_sec + (double)time.tv_nsec / 1e9;
}

/* User + system CPU time of this process. */
static inline double bench_cpu_seconds(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return (double)usage.ru_utime.tv_sec + (double)usage.ru_utime.tv_usec / 1e6 + (double)usage.ru_stime.tv_sec +
           (double)usage.ru_stime.tv_usec / 1e6;
}

#endif
