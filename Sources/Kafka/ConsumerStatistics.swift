import Foundation
import KafkaTypes

/// What a consumer learns from librdkafka's statistics JSON (`statistics.interval.ms`): per-partition lag, whether
/// it is a settled member of its group, and how many brokers it is connected to.
struct ConsumerStatistics: Equatable {
    /// Records not done per partition: from the offset the application stored last (else the group's committed
    /// offset, else the oldest record: a partition without either starts there) to the end of the log. Records
    /// handed out and not done count: the pipeline stores an offset only when the records before it are done.
    var lag: [TopicPartition: Int64]
    /// The group's connection state (`cgrp.state`, `up` once the coordinator is known) and its join state
    /// (`cgrp.join_state`, `steady` between rebalances); nil for a consumer without a group.
    var group: (state: String, joinState: String)?
    /// Brokers (with a node id) whose connection is `UP`.
    var brokersUp: Int

    init(lag: [TopicPartition: Int64], group: (state: String, joinState: String)? = nil, brokersUp: Int) {
        self.lag = lag
        self.group = group
        self.brokersUp = brokersUp
    }

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.lag == rhs.lag && lhs.group?.state == rhs.group?.state
            && lhs.group?.joinState == rhs.group?.joinState && lhs.brokersUp == rhs.brokersUp
    }

    private struct Statistics: Decodable {
        let topics: [String: Topic]?
        let brokers: [String: Broker]?
        let cgrp: Group?
    }

    private struct Topic: Decodable {
        let partitions: [String: Partition]?
    }

    private struct Partition: Decodable {
        let partition: Int32
        /// From the committed offset, and from the stored one (-1 where librdkafka does not know it).
        let consumerLag: Int64?
        let consumerLagStored: Int64?
        let lowOffset: Int64?
        let highOffset: Int64?
        let lastStableOffset: Int64?

        enum CodingKeys: String, CodingKey {
            case partition
            case consumerLag = "consumer_lag"
            case consumerLagStored = "consumer_lag_stored"
            case lowOffset = "lo_offset"
            case highOffset = "hi_offset"
            case lastStableOffset = "ls_offset"
        }

        /// The first of: lag from the stored offset, from the committed offset, from the oldest record.
        var lag: Int64? {
            if let stored = consumerLagStored, stored >= 0 { return stored }
            if let committed = consumerLag, committed >= 0 { return committed }
            guard let low = lowOffset, low >= 0, let end = lastStableOffset ?? highOffset, end >= low else {
                return nil
            }
            return end - low
        }
    }

    private struct Broker: Decodable {
        let nodeid: Int32?
        let state: String?
    }

    private struct Group: Decodable {
        let state: String?
        let joinState: String?

        enum CodingKeys: String, CodingKey {
            case state
            case joinState = "join_state"
        }
    }

    /// The statistics in `json` (lag of partitions librdkafka knows nothing of, and of the unassigned-messages
    /// queue, partition -1, left out). `nil` when the JSON is not statistics.
    static func parse(_ json: [UInt8]) -> Self? {
        guard let statistics = try? JSONDecoder().decode(Statistics.self, from: Data(json)) else { return nil }
        var lag: [TopicPartition: Int64] = [:]
        for (name, topic) in statistics.topics ?? [:] {
            for partition in (topic.partitions ?? [:]).values where partition.partition >= 0 {
                guard let value = partition.lag else { continue }
                lag[TopicPartition(name, partition.partition)] = value
            }
        }
        let brokersUp = (statistics.brokers ?? [:]).values.count { ($0.nodeid ?? -1) >= 0 && $0.state == "UP" }
        let group = statistics.cgrp.map { (state: $0.state ?? "", joinState: $0.joinState ?? "") }
        return Self(lag: lag, group: group, brokersUp: brokersUp)
    }
}
