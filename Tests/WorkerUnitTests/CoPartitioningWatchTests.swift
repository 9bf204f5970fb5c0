import Configuration
import Kafka
import Lifecycle
import Observability
import TestSupport
import Testing

@testable import Adapters
@testable import Worker

/// The co-partitioning watch of the `assigned` scope: a count that changed ends the group with exit 3, metadata that
/// cannot be read for a while (a broker away, a request refused) does not.
@Suite struct CoPartitioningWatchTests {
    /// Answers the metadata of the three topics: `error` for the first `unreadableChecks` checks, then
    /// `push.fanout` with 8 partitions, the registry topics with 6.
    final class Brokers: Sendable {
        let unreadableChecks: Int
        let error: KafkaError.Code
        private let requests = Shared<[[String]]>([])

        init(unreadableChecks: Int, error: KafkaError.Code) {
            self.unreadableChecks = unreadableChecks
            self.error = error
        }

        /// The topics each metadata request named, in order.
        var requested: [[String]] { requests.value }

        func partitions(of topics: [String]) throws(KafkaError) -> [String: [Int32]] {
            requests.update { $0.append(topics) }
            guard requests.value.count > unreadableChecks else {
                throw KafkaError(code: error, message: "fetching metadata of every topic")
            }
            return Dictionary(uniqueKeysWithValues: topics.map { ($0, Array(0..<($0 == "push.fanout" ? 8 : 6))) })
        }
    }

    /// A timeout passes; a refused request (an ACL being changed, say) is no partition count either.
    @Test(arguments: [KafkaError.Code.timedOut, .topicAuthorizationFailed])
    func metadataThatCannotBeReadIsCheckedAgainAndOnlyAChangedCountStopsTheWorker(error: KafkaError.Code) async {
        let clock = TestClock()
        let brokers = Brokers(unreadableChecks: 3, error: error)
        let watch = CoPartitioningWatch(
            partitionsOf: { topics throws(KafkaError) in try brokers.partitions(of: topics) },
            fanoutTopic: "push.fanout",
            registry: RegistryConfiguration(), partitions: 6, interval: .seconds(30), clock: clock,
            logger: Logger(label: "test", level: .critical))
        let exit = await TestExecutor().run(on: clock, within: .seconds(600)) { () async -> ServiceGroupExit? in
            do {
                try await watch.run(shutdown: GracefulShutdown())
                return nil
            } catch {
                return error as? ServiceGroupExit
            }
        }
        #expect(exit == ServiceGroupExit(code: WorkerExitCode.configuration, mode: .graceful))
        // Each check is one metadata request answering all three topics.
        #expect(brokers.requested == Array(repeating: ["push.fanout", "push.devices", "push.clients"], count: 4))
    }
}
