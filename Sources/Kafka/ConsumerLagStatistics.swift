import Foundation

/// Per-partition consumer lag read from librdkafka's statistics JSON (`statistics.interval.ms`).
enum ConsumerLagStatistics {
    private struct Statistics: Decodable {
        let topics: [String: Topic]?
    }

    private struct Topic: Decodable {
        let partitions: [String: Partition]?
    }

    private struct Partition: Decodable {
        let partition: Int32
        let consumerLag: Int64?

        enum CodingKeys: String, CodingKey {
            case partition
            case consumerLag = "consumer_lag"
        }
    }

    /// The lag of every partition whose lag librdkafka knows (it reports -1 for the others and uses
    /// partition -1 for the unassigned-messages queue, both left out). `nil` when the JSON is not statistics.
    static func parse(_ json: [UInt8]) -> [TopicPartition: Int64]? {
        guard let statistics = try? JSONDecoder().decode(Statistics.self, from: Data(json)) else { return nil }
        var lag: [TopicPartition: Int64] = [:]
        for (name, topic) in statistics.topics ?? [:] {
            for partition in (topic.partitions ?? [:]).values where partition.partition >= 0 {
                guard let value = partition.consumerLag, value >= 0 else { continue }
                lag[TopicPartition(name, partition.partition)] = value
            }
        }
        return lag
    }
}
