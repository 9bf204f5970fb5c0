import Foundation
import IntegrationSupport
import Kafka
import KafkaTypes

extension WorkerWebPushTests {
    /// What a run's observation works with: the dev broker and the worker's environment.
    struct RunContext {
        var kafka: KafkaConfiguration
        var bootstrap: String
        var environment: [String: String]
    }

    /// One `push-worker run` against `simulator`: the dev broker with `records` produced in order, the worker with a
    /// VAPID key (and `settings` over its environment), then `observe`; the worker, the broker and the simulator are stopped afterwards, also when
    /// `observe` throws. Returns the worker's exit status and what `observe` returned.
    static func run<Observed>(
        _ simulator: PushSimulator, allowPrivate: Bool = true, settings: [String: String] = [:],
        records: [(topic: String, key: String, value: String)], observe: (RunContext) async throws -> Observed
    ) async throws -> (status: Int32?, observed: Observed) {
        let (broker, bootstrap) = try await startDevBroker()
        let kafka = KafkaConfiguration(["bootstrap.servers": bootstrap])
        let producer = try KafkaProducer(configuration: kafka)
        var observed: Result<Observed, any Error>
        var worker: ChildProcess?
        do {
            for record in records {
                _ = try await producer.send(
                    KafkaProducerRecord(
                        topic: record.topic, key: Array(record.key.utf8), value: Array(record.value.utf8)))
            }
            let environment = try await environment(
                bootstrap: bootstrap, simulator: simulator, allowPrivate: allowPrivate
            ).merging(settings) { $1 }
            worker = try workerProcess(environment: environment)
            observed = .success(
                try await observe(RunContext(kafka: kafka, bootstrap: bootstrap, environment: environment)))
        } catch {
            observed = .failure(error)
        }
        worker?.signal(SIGTERM)
        let status = await worker?.exitStatus()
        _ = await producer.close(timeout: .seconds(5))
        _ = try? await broker.terminate()
        await simulator.stop()
        return (status ?? nil, try observed.get())
    }
}
