/// Which kind of client a librdkafka property applies to.
///
/// One `KAFKA_*` environment configures both the consumer and the producer, and librdkafka 2.0.2 logs a
/// warning on every start for each property meant for the other kind of client; so each client leaves out the
/// other's properties. The lists are librdkafka 2.0.2's own (`C` and `P` in `rd_kafka_conf_properties_show`).
enum PropertyScope {
    /// Properties only a consumer reads.
    static let consumerOnly: Set<String> = [
        "auto.commit.enable", "auto.commit.interval.ms", "auto.offset.reset", "check.crcs",
        "consume.callback.max.messages", "coordinator.query.interval.ms", "enable.auto.commit",
        "enable.auto.offset.store", "enable.partition.eof", "fetch.error.backoff.ms", "fetch.max.bytes",
        "fetch.message.max.bytes", "fetch.min.bytes", "fetch.wait.max.ms", "group.id", "group.instance.id",
        "group.protocol.type", "heartbeat.interval.ms", "isolation.level", "max.partition.fetch.bytes",
        "max.poll.interval.ms", "offset.store.method", "offset.store.path", "offset.store.sync.interval.ms",
        "partition.assignment.strategy", "queued.max.messages.kbytes", "queued.min.messages", "session.timeout.ms",
    ]

    /// Properties only a producer reads.
    static let producerOnly: Set<String> = [
        "acks", "batch.num.messages", "batch.size", "compression.codec", "compression.level", "compression.type",
        "delivery.report.only.error", "delivery.timeout.ms", "enable.gapless.guarantee", "enable.idempotence",
        "linger.ms", "message.send.max.retries", "message.timeout.ms", "partitioner", "produce.offset.report",
        "queue.buffering.backpressure.threshold", "queue.buffering.max.kbytes", "queue.buffering.max.messages",
        "queue.buffering.max.ms", "queuing.strategy", "request.required.acks", "request.timeout.ms", "retries",
        "retry.backoff.ms", "sticky.partitioning.linger.ms", "transaction.timeout.ms", "transactional.id",
    ]
}
