/* The benchmark's receipt reader: tails a receipts topic from its beginning, as kcat -C -o beginning does, and prints
 * one short line per receipt, "<timestamp ms>\t<messageId>\t<status>\t<latencyMs>\n" ("-" for a field not found),
 * flushed whenever the topic has nothing more for the moment.
 *
 * Why not kcat and json.loads: printing each whole receipt and parsing it in Python took 0.26 s of CPU per 10k
 * receipts (more than nginx) on the two cores the worker shares with nginx, the broker and the benchmark. This reader
 * finds the three fields it needs with memmem in the value librdkafka already holds.
 *
 * Build: cc -O2 -o bench_receipt_reader bench_receipt_reader.c -lrdkafka
 * Usage: bench_receipt_reader BOOTSTRAP TOPIC */
#define _GNU_SOURCE
#include <librdkafka/rdkafka.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static volatile sig_atomic_t running = 1;

static void stop(int signal_number) {
    (void)signal_number;
    running = 0;
}

/* Copies the value of `"name":` in `json` (a string without its quotes, or a bare number, true/false/null) into
 * `out`, at most `capacity - 1` bytes; "-" when the name is absent. Good enough for the worker's own receipts: their
 * names are unique at any depth for these three, and the values read here never hold escapes. */
static void field(const char *json, size_t length, const char *name, char *out, size_t capacity) {
    char needle[64];
    int needle_length = snprintf(needle, sizeof needle, "\"%s\"", name);
    const char *end = json + length;
    const char *at = memmem(json, length, needle, (size_t)needle_length);
    strcpy(out, "-");
    if (!at) return;
    at += needle_length;
    while (at < end && (*at == ' ' || *at == ':')) at++;
    if (at >= end) return;
    char terminator = ',';
    if (*at == '"') {
        terminator = '"';
        at++;
    }
    size_t copied = 0;
    while (at < end && copied + 1 < capacity && *at != terminator && (terminator == '"' || (*at != '}' && *at != ' '))) {
        out[copied++] = *at++;
    }
    out[copied] = '\0';
    if (copied == 0) strcpy(out, "-");
}

static rd_kafka_topic_partition_list_t *partitions_of(rd_kafka_t *consumer, const char *topic) {
    for (int attempt = 0; running && attempt < 600; attempt++) {
        const struct rd_kafka_metadata *metadata = NULL;
        rd_kafka_topic_t *handle = rd_kafka_topic_new(consumer, topic, NULL);
        rd_kafka_resp_err_t error = rd_kafka_metadata(consumer, 0, handle, &metadata, 5000);
        rd_kafka_topic_destroy(handle);
        if (error == RD_KAFKA_RESP_ERR_NO_ERROR && metadata->topic_cnt == 1 && metadata->topics[0].err == 0 &&
            metadata->topics[0].partition_cnt > 0) {
            rd_kafka_topic_partition_list_t *list = rd_kafka_topic_partition_list_new(metadata->topics[0].partition_cnt);
            for (int index = 0; index < metadata->topics[0].partition_cnt; index++) {
                rd_kafka_topic_partition_list_add(list, topic, metadata->topics[0].partitions[index].id)->offset =
                    RD_KAFKA_OFFSET_BEGINNING;
            }
            rd_kafka_metadata_destroy(metadata);
            return list;
        }
        if (metadata) rd_kafka_metadata_destroy(metadata);
        nanosleep(&(struct timespec){.tv_nsec = 100 * 1000 * 1000}, NULL);
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s BOOTSTRAP TOPIC\n", argv[0]);
        return 2;
    }
    signal(SIGTERM, stop);
    signal(SIGINT, stop);
    char error[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    const char *settings[][2] = {
        {"bootstrap.servers", argv[1]}, {"group.id", "bench-receipt-reader"}, {"enable.auto.commit", "false"},
        {"fetch.wait.max.ms", "100"}, {"fetch.min.bytes", "262144"}, {"allow.auto.create.topics", "true"},
    };
    for (size_t index = 0; index < sizeof settings / sizeof settings[0]; index++) {
        if (rd_kafka_conf_set(conf, settings[index][0], settings[index][1], error, sizeof error) != RD_KAFKA_CONF_OK) {
            fprintf(stderr, "bench_receipt_reader: %s\n", error);
            return 2;
        }
    }
    rd_kafka_t *consumer = rd_kafka_new(RD_KAFKA_CONSUMER, conf, error, sizeof error);
    if (!consumer) {
        fprintf(stderr, "bench_receipt_reader: %s\n", error);
        return 2;
    }
    rd_kafka_topic_partition_list_t *partitions = partitions_of(consumer, argv[2]);
    if (!partitions) {
        fprintf(stderr, "bench_receipt_reader: no partitions of %s\n", argv[2]);
        return 1;
    }
    rd_kafka_assign(consumer, partitions);
    rd_kafka_topic_partition_list_destroy(partitions);
    static char output[1 << 16];
    setvbuf(stdout, output, _IOFBF, sizeof output);
    char message_id[256], status[64], latency[32];
    while (running) {
        rd_kafka_message_t *message = rd_kafka_consumer_poll(consumer, 100);
        if (!message) {
            fflush(stdout);
            continue;
        }
        if (message->err == RD_KAFKA_RESP_ERR_NO_ERROR && message->payload) {
            const char *value = message->payload;
            field(value, message->len, "messageId", message_id, sizeof message_id);
            field(value, message->len, "status", status, sizeof status);
            field(value, message->len, "latencyMs", latency, sizeof latency);
            printf("%lld\t%s\t%s\t%s\n", (long long)rd_kafka_message_timestamp(message, NULL), message_id, status,
                   latency);
        }
        rd_kafka_message_destroy(message);
    }
    fflush(stdout);
    rd_kafka_consumer_close(consumer);
    rd_kafka_destroy(consumer);
    return 0;
}
