internal import CRdKafka
import Foundation
import Synchronization

/// The producer's own thread: serves delivery reports and errors (`rd_kafka_poll`) until stopped, then
/// fails what is still pending so that no awaiting caller is left hanging. After each poll it lets the producer's
/// gate, if it has one, release the waves held too long (`ProduceGate.releaseIfStuck`): a poll returns at the
/// latest after 100 ms.
///
/// The thread keeps the handle alive until it ends, so the handle is destroyed there (`rd_kafka_destroy`
/// blocks) and never on the thread that dropped the last `KafkaProducer`.
final class ProducerPoller: Sendable {
    private let stopped = Atomic(false)
    private let ended = Atomic(false)
    private let finished = DispatchSemaphore(value: 0)

    init(client: RDKafkaClient, gate: ProduceGate? = nil) {
        let thread = Thread { [self] in
            Thread.current.name = "kafka-poll"  // the name `top -H` shows: set by the thread itself
            while !stopped.load(ordering: .acquiring) {
                rd_kafka_poll(client.handle, 100)
                gate?.releaseIfStuck()
            }
            let purge = Int32(RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT | RD_KAFKA_PURGE_F_NON_BLOCKING)
            _ = rd_kafka_purge(client.handle, purge)
            // Purged records get their (failed) reports through the poll queue; serve them, boundedly.
            for _ in 0..<200 where rd_kafka_outq_len(client.handle) > 0 {
                rd_kafka_poll(client.handle, 10)
            }
            ended.store(true, ordering: .releasing)
            finished.signal()
        }
        thread.start()
    }

    /// Asks the thread to stop; it fails the pending reports and ends on its own. Idempotent.
    func requestStop() {
        stopped.store(true, ordering: .releasing)
    }

    /// Stops the thread and waits (blocking: call it off the cooperative pool) until every pending delivery
    /// report has been served, also when a stop was requested before. Any number of callers may wait.
    func stopAndWait() {
        requestStop()
        finished.wait()
        finished.signal()  // for the next caller
    }

    /// Whether the thread has served its last reports.
    var hasFinished: Bool { ended.load(ordering: .acquiring) }
}
