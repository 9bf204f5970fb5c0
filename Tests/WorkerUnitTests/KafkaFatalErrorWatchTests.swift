import Adapters
import Kafka
import Lifecycle
import Observability
import PipelineMetrics
import TestSupport
import Testing

@testable import Worker

/// The fatal-error watch over every Kafka client of the worker: the first one that failed for good ends the group,
/// named in the log line.
@Suite struct KafkaFatalErrorWatchTests {
    static let fenced = KafkaError(code: KafkaError.Code(name: "FENCED_INSTANCE_ID") ?? .timedOut, message: "fenced")

    static func watch(failing: String?, readiness: HealthChecks, lines: LogLines) -> KafkaFatalErrorWatch {
        KafkaFatalErrorWatch(
            clients: ["consumer", "fan-out consumer", KafkaFatalErrorWatch.producerName].map { name in
                KafkaFatalErrorWatch.Client(name: name, fatalError: { name == failing ? Self.fenced : nil })
            }, readiness: readiness, logger: Logger(label: "t", sink: lines))
    }

    @Test func aFatalErrorOfTheFanoutConsumerEndsTheGroupNamingIt() {
        let readiness = HealthChecks()
        readiness.set(ProducerHealth.readinessCondition, passing: true)
        let lines = LogLines()
        #expect(throws: ServiceGroupExit(code: WorkerExitCode.failure, mode: .graceful)) {
            try Self.watch(failing: "fan-out consumer", readiness: readiness, lines: lines).check()
        }
        let logged = lines.records("kafka client failed fatally, stopping")
        #expect(logged.map { $0.metadata["kafka.client"] } == [.string("fan-out consumer")])
        // A consumer's failure leaves the producer's readiness as it was.
        #expect(readiness.evaluate().passing)
    }

    @Test func noFatalErrorLetsTheGroupRunAndAFailedProducerFailsItsReadiness() throws {
        let readiness = HealthChecks()
        readiness.set(ProducerHealth.readinessCondition, passing: true)
        let lines = LogLines()
        try Self.watch(failing: nil, readiness: readiness, lines: lines).check()
        #expect(lines.records.isEmpty)
        #expect(throws: ServiceGroupExit.self) {
            try Self.watch(failing: KafkaFatalErrorWatch.producerName, readiness: readiness, lines: lines).check()
        }
        #expect(readiness.evaluate().failing == [ProducerHealth.readinessCondition])
    }
}
