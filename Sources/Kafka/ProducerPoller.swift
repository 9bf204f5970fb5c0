internal import CRdKafka
import Foundation
import Synchronization

/// The producer's own thread: serves delivery reports and errors (`rd_kafka_poll`) until stopped, then
/// fails what is still pending so that no awaiting caller is left hanging.
final class ProducerPoller: Sendable {
    private let stopped = Atomic(false)
    private let finished = DispatchSemaphore(value: 0)
    private static let threadName = "kafka.producer.poll"

    init(client: RDKafkaClient) {
        let thread = Thread { [self] in
            while !stopped.load(ordering: .acquiring) {
                rd_kafka_poll(client.handle, 100)
            }
            let purge = Int32(RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT | RD_KAFKA_PURGE_F_NON_BLOCKING)
            _ = rd_kafka_purge(client.handle, purge)
            // Purged records get their (failed) reports through the poll queue; serve them, boundedly.
            for _ in 0..<200 where rd_kafka_outq_len(client.handle) > 0 {
                rd_kafka_poll(client.handle, 10)
            }
            finished.signal()
        }
        thread.name = Self.threadName
        thread.start()
    }

    /// Stops the thread and waits until it has failed every pending delivery report. Idempotent. Called on
    /// the poll thread itself (a delivery callback dropping the last reference to the producer), it does not wait.
    func stop() {
        guard stopped.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return }
        guard Thread.current.name != Self.threadName else { return }
        finished.wait()
    }
}
