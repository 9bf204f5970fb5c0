/*
 * The bare libcurl peer of the benchmark: the same requests the worker sends, from a plain libcurl
 * multi loop, so that the worker's rate can be compared with what libcurl itself reaches on the same endpoint in
 * the same run.
 *
 *   bench_peer APNS_ORIGIN FCM_ORIGIN CA_FILE REQUESTS [STREAMS]
 *
 * Half the requests are APNs-shaped (POST /3/device/<64 hex>, the worker's apns-* headers and a bearer token,
 * a ~500-byte alert body), half FCM-shaped (POST /v1/projects/<id>/messages:send, a bearer token, a ~600-byte
 * message; all in bench_requests.h); STREAMS (default 200) transfers are kept in flight over HTTP/2 with TLS, each
 * easy handle reused for the next request. Prints one line: requests, seconds, requests/s, CPU seconds (user + system), failures.
 * Built by bench.py with `cc -O2 bench_peer.c -lcurl`; not part of the service.
 */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_requests.h"

struct transfer {
    CURL *easy;
    struct curl_slist *headers;
    int apns;
};

static size_t discard(char *data, size_t size, size_t count, void *context) {
    (void)data;
    (void)context;
    return size * count;
}

/* The `name: value` lines of `headers` as libcurl's list. */
static struct curl_slist *header_list(const struct bench_header *headers, size_t count) {
    struct curl_slist *list = NULL;
    for (size_t index = 0; index < count; index++) {
        char line[256];
        snprintf(line, sizeof line, "%s: %s", headers[index].name, headers[index].value);
        list = curl_slist_append(list, line);
    }
    return list;
}

/* Points `transfer` at request number `index` (APNs when even) and adds it to `multi`. */
static void start(CURLM *multi, struct transfer *transfer, long index, const char *apns, const char *fcm) {
    char url[512], path[96];
    transfer->apns = index % 2 == 0;
    snprintf(url, sizeof url, "%s%s", transfer->apns ? apns : fcm, bench_path(path, sizeof path, index));
    curl_easy_setopt(transfer->easy, CURLOPT_URL, url);
    curl_easy_setopt(transfer->easy, CURLOPT_HTTPHEADER, transfer->headers);
    curl_easy_setopt(transfer->easy, CURLOPT_POSTFIELDS, transfer->apns ? bench_apns_body : bench_fcm_body);
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

    struct curl_slist *apns_headers = header_list(bench_apns_headers, BENCH_APNS_HEADER_COUNT);
    struct curl_slist *fcm_headers = header_list(bench_fcm_headers, BENCH_FCM_HEADER_COUNT);

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
    double began = bench_now_seconds(), cpu_began = bench_cpu_seconds();
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
    double seconds = bench_now_seconds() - began;
    printf("peer: %ld requests in %.2f s: %.0f requests/s, CPU %.2f s, failed %ld\n", requests, seconds,
           (double)requests / seconds, bench_cpu_seconds() - cpu_began, failed);

    for (int slot = 0; slot < streams; slot++) curl_easy_cleanup(transfers[slot].easy);
    free(transfers);
    curl_slist_free_all(apns_headers);
    curl_slist_free_all(fcm_headers);
    curl_multi_cleanup(multi);
    curl_global_cleanup();
    return failed == 0 ? 0 : 1;
}
