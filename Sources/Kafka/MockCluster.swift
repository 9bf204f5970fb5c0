internal import CRdKafka
import Dispatch
public import KafkaTypes

/// An in-process Kafka cluster (librdkafka's mock cluster) listening on loopback TCP, with fault injection.
///
/// Real clients (this module, kcat, confluent-kafka) connect to `bootstrapServers`. Brokers are numbered
/// from 1. The mock keeps only the newest records of each partition, so it suits tests and demos, not backlogs.
public final class MockCluster: Sendable {
    private let cluster: MockClusterHandle

    deinit {
        // Destroying the cluster joins its thread: let the last reference go off the caller's thread.
        DispatchQueue.global().async { [cluster] in withExtendedLifetime(cluster) {} }
    }

    /// The cluster's brokers as `host:port,…`, for `bootstrap.servers`.
    public let bootstrapServers: String
    /// How many brokers the cluster has (ids `1...brokerCount`).
    public let brokerCount: Int

    /// Starts a cluster of `brokers` brokers.
    public init(brokers: Int = 3) throws(KafkaError) {
        guard brokers >= 1 else { throw KafkaError.invalidArgument("a mock cluster needs at least one broker") }
        cluster = try MockClusterHandle(brokers: brokers)
        bootstrapServers = String(libraryText: rd_kafka_mock_cluster_bootstraps(cluster.cluster)) ?? ""
        brokerCount = brokers
    }

    /// Creates `topic` with `partitions` partitions (leaders spread over the brokers).
    public func createTopic(_ topic: String, partitions: Int, replicationFactor: Int = 1) throws(KafkaError) {
        let result = rd_kafka_mock_topic_create(
            cluster.cluster, topic, Int32(clamping: partitions), Int32(clamping: min(replicationFactor, brokerCount)))
        try check(result, "creating topic \(topic)")
    }

    /// Takes broker `id` down: its connections close and it refuses new ones until `setBrokerUp`.
    public func setBrokerDown(_ id: Int32) throws(KafkaError) {
        try check(rd_kafka_mock_broker_set_down(cluster.cluster, id), "setting broker \(id) down")
    }

    /// Brings broker `id` back up.
    public func setBrokerUp(_ id: Int32) throws(KafkaError) {
        try check(rd_kafka_mock_broker_set_up(cluster.cluster, id), "setting broker \(id) up")
    }

    /// Delays every response of broker `id` by `milliseconds` (0 removes the delay).
    public func setRoundTripTime(broker id: Int32, milliseconds: Int) throws(KafkaError) {
        let result = rd_kafka_mock_broker_set_rtt(cluster.cluster, id, Int32(clamping: milliseconds))
        try check(result, "setting the round-trip time of broker \(id)")
    }

    /// Makes the next requests of type `api` (to any broker) fail, one per error, in order.
    public func pushRequestErrors(_ api: KafkaAPI, _ errors: [KafkaError.Code]) {
        let codes = errors.map { rd_kafka_resp_err_t(rawValue: $0.rawValue) }
        codes.withUnsafeBufferPointer { buffer in
            rd_kafka_mock_push_request_errors_array(cluster.cluster, api.rawValue, buffer.count, buffer.baseAddress)
        }
    }

    /// Drops the errors still queued for requests of type `api`.
    public func clearRequestErrors(_ api: KafkaAPI) {
        rd_kafka_mock_clear_request_errors(cluster.cluster, api.rawValue)
    }

    /// Makes broker `id` the leader of `partition`.
    public func setLeader(of partition: TopicPartition, broker id: Int32) throws(KafkaError) {
        let result = rd_kafka_mock_partition_set_leader(cluster.cluster, partition.topic, partition.partition, id)
        try check(result, "moving the leader of \(partition) to broker \(id)")
    }

    /// Makes broker `id` the coordinator of consumer group `group`.
    public func setGroupCoordinator(_ group: String, broker id: Int32) throws(KafkaError) {
        try check(rd_kafka_mock_coordinator_set(cluster.cluster, "group", group, id), "moving coordinator of \(group)")
    }

    /// Makes every metadata answer for `topic` carry `error` (`.noError` clears it).
    public func setTopicError(_ topic: String, _ error: KafkaError.Code) {
        rd_kafka_mock_topic_set_error(cluster.cluster, topic, error.resp)
    }

    private func check(_ result: rd_kafka_resp_err_t, _ context: String) throws(KafkaError) {
        if let error = KafkaError.from(result, context: context) { throw error }
    }
}

/// The one owner of a mock cluster and the librdkafka handle it runs in.
///
/// `@unchecked Sendable` is safe: both pointers are immutable after `init`, the mock cluster API posts
/// operations to the cluster's own thread (thread-safe), and destruction happens only in `deinit`.
private final class MockClusterHandle: @unchecked Sendable {
    let client: RDKafkaClient
    let cluster: OpaquePointer

    init(brokers: Int) throws(KafkaError) {
        client = try RDKafkaClient(.producer, properties: ["log_level": "3"], callbacks: .init())
        guard let cluster = rd_kafka_mock_cluster_new(client.handle, Int32(clamping: brokers)) else {
            throw KafkaError(code: .invalidArgument, message: "librdkafka could not start a mock cluster")
        }
        self.cluster = cluster
    }

    deinit {
        rd_kafka_mock_cluster_destroy(cluster)
    }
}
