import Kafka
import KafkaTypes
import Testing

@Suite struct ProducerQueueFullTests {
    /// A record refused for a full local queue is queued again after a short wait, but not once its task is
    /// cancelled: the cancelled send ends with the refusal instead of trying again without a wait until the queue
    /// drains (here: until the record holding it times out).
    @Test func aCancelledSendEndsWithTheFullQueueRefusal() async throws {
        let producer = try KafkaProducer(
            configuration: KafkaConfiguration([
                "bootstrap.servers": "127.0.0.1:1", "queue.buffering.max.messages": "1",
                "message.timeout.ms": "60000",
            ]))
        // The queue's one place, held until its record times out (a minute: on a loaded machine the task below may
        // start seconds late, and must still find the queue full): nothing listens at port 1.
        try producer.send(KafkaProducerRecord(topic: "t", value: [1]), onDelivery: { _ in })
        let cancelled = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await producer.send([KafkaProducerRecord(topic: "t", value: [2])])
        }
        let reports = await cancelled.value
        #expect(reports.count == 1)
        guard case .failure(let error) = reports.first else {
            Issue.record("the cancelled send was stored or not reported: \(reports)")
            return
        }
        #expect(error.code == .queueFull)
    }
}
