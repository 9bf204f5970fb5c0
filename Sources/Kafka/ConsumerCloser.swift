internal import CRdKafka
import Dispatch

/// Closes a consumer through `rd_kafka_consumer_close_queue`, serving its rebalance events, within a
/// deadline: librdkafka 2.0.2's blocking `rd_kafka_consumer_close` can hang for a cooperative consumer.
struct ConsumerCloser {
    let handle: OpaquePointer
    let context: ConsumerContext

    /// Returns whether the consumer closed before the deadline.
    func close(within timeout: Duration) -> Bool {
        guard let queue = rd_kafka_queue_new(handle) else { return false }
        defer { rd_kafka_queue_destroy(queue) }
        if let error = rd_kafka_consumer_close_queue(handle, queue) {
            context.report(KafkaError(taking: error))
            return false
        }
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(timeout.milliseconds) * 1_000_000
        while rd_kafka_consumer_closed(handle) == 0 {
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline else {
                context.report(KafkaError(code: .timedOut, message: "closing the consumer took longer than \(timeout)"))
                return false
            }
            let wait = Int32(min((deadline - now) / 1_000_000, 100))
            guard let event = rd_kafka_queue_poll(queue, wait) else { continue }
            defer { rd_kafka_event_destroy(event) }
            if rd_kafka_event_type(event) == RD_KAFKA_EVENT_REBALANCE {
                context.rebalance(
                    handle: handle, code: rd_kafka_event_error(event),
                    partitions: rd_kafka_event_topic_partition_list(event))
            }
        }
        return true
    }
}
