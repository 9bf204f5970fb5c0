#ifndef PUSH_WORKER_CRDKAFKA_SHIM_H
#define PUSH_WORKER_CRDKAFKA_SHIM_H

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

/// Produces one record through the variadic rd_kafka_producev with its RD_KAFKA_V_* macros.
/// `partition` is RD_KAFKA_PARTITION_UA for the partitioner's choice, `timestamp_ms` 0 for "now".
/// On success librdkafka owns `headers` (may be NULL); on failure the caller still owns them.
static inline rd_kafka_resp_err_t pw_rd_kafka_produce(rd_kafka_t *rk, const char *topic, int32_t partition,
                                                      const void *key, size_t key_size, const void *value,
                                                      size_t value_size, rd_kafka_headers_t *headers,
                                                      int64_t timestamp_ms, void *opaque) {
    if (headers) {
        return rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_PARTITION(partition),
                                 RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_KEY(key, key_size),
                                 RD_KAFKA_V_VALUE((void *)value, value_size), RD_KAFKA_V_HEADERS(headers),
                                 RD_KAFKA_V_TIMESTAMP(timestamp_ms), RD_KAFKA_V_OPAQUE(opaque), RD_KAFKA_V_END);
    }
    return rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_PARTITION(partition),
                             RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_KEY(key, key_size),
                             RD_KAFKA_V_VALUE((void *)value, value_size), RD_KAFKA_V_TIMESTAMP(timestamp_ms),
                             RD_KAFKA_V_OPAQUE(opaque), RD_KAFKA_V_END);
}

/// RD_KAFKA_PARTITION_UA as a typed constant: "let the partitioner choose".
static const int32_t pw_rd_kafka_partition_unassigned = RD_KAFKA_PARTITION_UA;

/// RD_KAFKA_OFFSET_* sentinels as typed constants.
static const int64_t pw_rd_kafka_offset_beginning = RD_KAFKA_OFFSET_BEGINNING;
static const int64_t pw_rd_kafka_offset_end = RD_KAFKA_OFFSET_END;
static const int64_t pw_rd_kafka_offset_stored = RD_KAFKA_OFFSET_STORED;
static const int64_t pw_rd_kafka_offset_invalid = RD_KAFKA_OFFSET_INVALID;

/// RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE: destroy without the (possibly hanging) implicit consumer close.
static const int pw_rd_kafka_destroy_no_consumer_close = RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE;

#endif
