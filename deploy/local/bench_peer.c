/*
 * The bare libcurl peer of the benchmark (issue 13): the same requests the worker sends, from a plain libcurl
 * multi loop, so that the worker's rate can be compared with what libcurl itself reaches on the same endpoint in
 * the same run.
 *
 *   bench_peer APNS_ORIGIN FCM_ORIGIN CA_FILE REQUESTS [STREAMS]
 *
 * Half the requests are APNs-shaped (POST /3/device/<64 hex>, the worker's apns-* headers and a bearer token,
 * a ~500-byte alert body), half FCM-shaped (POST /v1/projects/<id>/messages:send, a bearer token, a ~600-byte
 * message); STREAMS (default 200) transfers are kept in flight over HTTP/2 with TLS, each easy handle reused for
 * the next request. Prints one line: requests, seconds, requests/s, CPU seconds (user + system), failures.
 * Built by bench.py with `cc -O2 bench_peer.c -lcurl`; not part of the service.
 */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

struct transfer {
    CURL *easy;
    struct curl_slist *headers;
    int apns;
};

static const char *apns_body =
    "{\"aps\":{\"alert\":{\"loc-key\":\"im_loc_text\",\"loc-args\":[\"Alice\",\"Are we still on for lunch "
    "tomorrow? I booked the place near the office for twelve.\"],\"title\":\"Team\",\"body\":\"Alice: Are we still "
    "on for lunch tomorrow? I booked the place near the office for twelve.\"},\"sound\":\"default\",\"badge\":3,"
    "\"thread-id\":\"r-42\",\"mutable-content\":1},\"type\":\"text\",\"room\":\"r-42\",\"message\":\"m-1000\"}";

static const char *fcm_body =
    "{\"message\":{\"token\":\"fcm-token-0001\",\"notification\":{\"title\":\"Team\",\"body\":\"Alice: Are we "
    "still on for lunch tomorrow? I booked the place near the office for twelve.\"},\"android\":{\"collapse_key\":"
    "\"r-42\",\"ttl\":\"3600s\",\"priority\":\"HIGH\",\"notification\":{\"body_loc_key\":\"im_loc_text\","
    "\"body_loc_args\":[\"Alice\",\"Are we still on for lunch tomorrow?\"],\"click_action\":\"push_chatroom\","
    "\"notification_count\":3,\"tag\":\"r-42\"}},\"data\":{\"loc-key\":\"im_loc_text\",\"type\":\"text\","
    "\"payload\":\"{}\"}}}";

static double now_seconds(void) {
    struct timespec time;
    clock_gettime(CLOCK_MONOTONIC, &time);
    return (double)time.tv_sec + (double)time.tv_nsec / 1e9;
}

static double cpu_seconds(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return (double)usage.ru_utime.tv_sec + (double)usage.ru_utime.tv_usec / 1e6 + (double)usage.ru_stime.tv_sec +
           (double)usage.ru_stime.tv_usec / 1e6;
}

static size_t discard(char *data, size_t size, size_t count, void *context) {
    (void)data;
    (void)context;
    return size * count;
}

/* Points `transfer` at request number `index` (APNs when even) and adds it to `multi`. */
static void start(CURLM *multi, struct transfer *transfer, long index, const char *apns, const char *fcm) {
    char url[512];
    transfer->apns = index % 2 == 0;
    if (transfer->apns) {
        snprintf(url, sizeof url, "%s/3/device/%064lx", apns, index + 1);
    } else {
        snprintf(url, sizeof url, "%s/v1/projects/bench-project/messages:send", fcm);
    }
    curl_easy_setopt(transfer->easy, CURLOPT_URL, url);
    curl_easy_setopt(transfer->easy, CURLOPT_HTTPHEADER, transfer->headers);
    curl_easy_setopt(transfer->easy, CURLOPT_POSTFIELDS, transfer->apns ? apns_body : fcm_body);
    curl_multi_add_handle(multi, transfer->easy);
}

int main(int argc, char **argv) {
    if (argc < 5) {
        fprintf(stderr, "usage: bench_peer APNS_ORIGIN FCM_ORIGIN CA_FILE REQUESTS [STREAMS]\n");
        return 2;
    }
    const char *apns = argv[1], *fcm = argv[2], *ca_file = argv[3];
    long requests = atol(argv[4]);
    int streams = argc > 5 ? atoi(argv[5]) : 200;
    if (requests <= 0 || streams <= 0) return 2;

    curl_global_init(CURL_GLOBAL_DEFAULT);
    CURLM *multi = curl_multi_init();
    curl_multi_setopt(multi, CURLMOPT_PIPELINING, (long)CURLPIPE_MULTIPLEX);
    curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, 4L);
    curl_multi_setopt(multi, CURLMOPT_MAX_CONCURRENT_STREAMS, 100L);

    struct curl_slist *apns_headers = NULL, *fcm_headers = NULL;
    const char *apns_lines[] = {"content-type: application/json", "apns-push-type: alert", "apns-topic: com.example.chat",
                                "apns-priority: 10", "apns-expiration: 1800000000", "apns-collapse-id: r-42",
                                "apns-id: 6c7a1b52-3f4e-4d5a-9b8c-7d6e5f4a3b2c",
                                "authorization: bearer eyJhbGciOiJFUzI1NiIsImtpZCI6IktFWSJ9.e30.c2lnbmF0dXJl"};
    for (size_t line = 0; line < sizeof apns_lines / sizeof *apns_lines; line++) {
        apns_headers = curl_slist_append(apns_headers, apns_lines[line]);
    }
    fcm_headers = curl_slist_append(fcm_headers, "content-type: application/json");
    fcm_headers = curl_slist_append(fcm_headers, "authorization: Bearer ya29.bench-access-token");

    struct transfer *transfers = calloc((size_t)streams, sizeof *transfers);
    for (int slot = 0; slot < streams; slot++) {
        CURL *easy = curl_easy_init();
        curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
        curl_easy_setopt(easy, CURLOPT_PIPEWAIT, 1L);
        curl_easy_setopt(easy, CURLOPT_CAINFO, ca_file);
        curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, discard);
        curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, 10000L);
        curl_easy_setopt(easy, CURLOPT_PRIVATE, &transfers[slot]);
        transfers[slot].easy = easy;
        transfers[slot].headers = slot % 2 == 0 ? apns_headers : fcm_headers;
    }

    long next = 0, done = 0, failed = 0;
    double began = now_seconds(), cpu_began = cpu_seconds();
    for (int slot = 0; slot < streams && next < requests; slot++) {
        transfers[slot].headers = next % 2 == 0 ? apns_headers : fcm_headers;
        start(multi, &transfers[slot], next++, apns, fcm);
    }
    while (done < requests) {
        int running = 0;
        curl_multi_perform(multi, &running);
        int queued = 0;
        CURLMsg *message;
        while ((message = curl_multi_info_read(multi, &queued))) {
            if (message->msg != CURLMSG_DONE) continue;
            struct transfer *transfer = NULL;
            long status = 0;
            curl_easy_getinfo(message->easy_handle, CURLINFO_PRIVATE, (char **)&transfer);
            curl_easy_getinfo(message->easy_handle, CURLINFO_RESPONSE_CODE, &status);
            if (message->data.result != CURLE_OK || status != 200) failed++;
            curl_multi_remove_handle(multi, message->easy_handle);
            done++;
            if (next < requests) {
                transfer->headers = next % 2 == 0 ? apns_headers : fcm_headers;
                start(multi, transfer, next++, apns, fcm);
            }
        }
        if (done < requests) curl_multi_poll(multi, NULL, 0, 100, NULL);
    }
    double seconds = now_seconds() - began;
    printf("peer: %ld requests in %.2f s: %.0f requests/s, CPU %.2f s, failed %ld\n", requests, seconds,
           (double)requests / seconds, cpu_seconds() - cpu_began, failed);

    for (int slot = 0; slot < streams; slot++) curl_easy_cleanup(transfers[slot].easy);
    free(transfers);
    curl_slist_free_all(apns_headers);
    curl_slist_free_all(fcm_headers);
    curl_multi_cleanup(multi);
    curl_global_cleanup();
    return failed == 0 ? 0 : 1;
}
