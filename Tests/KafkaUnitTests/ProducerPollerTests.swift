import Testing

@testable import Kafka

@Suite struct ProducerPollerTests {
    /// A stop requested first (a dropped producer does so) does not let a later `stopAndWait` return before the
    /// thread has served its last reports: the thread polls in steps of 100 ms, so a wait that does not wait returns
    /// while it is still polling.
    @Test func stopAndWaitWaitsForTheThreadAfterAStopWasRequested() throws {
        let client = try RDKafkaClient(.producer, properties: ["bootstrap.servers": "127.0.0.1:1"], callbacks: .init())
        let poller = ProducerPoller(client: client)
        poller.requestStop()
        poller.stopAndWait()
        #expect(poller.hasFinished)
        poller.stopAndWait()  // and again: every caller returns
        #expect(poller.hasFinished)
    }
}
