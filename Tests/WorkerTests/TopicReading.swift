import Foundation
import Kafka
import KafkaTypes

/// Records of `topic` (`partitions`, by default every partition the metadata gives, from the start) until `count`
/// arrived or `limit` passed.
func readRecords(
    _ kafka: KafkaConfiguration, topic: String, partitions: [Int32]? = nil, count: Int, within limit: Duration
) async throws -> [KafkaRecord] {
    let reader = try KafkaConsumer(
        configuration: kafka.merging(KafkaConfiguration(["group.id": "reader-\(UUID().uuidString.prefix(8))"])))
    let assigned: [Int32]
    if let partitions { assigned = partitions } else { assigned = try await reader.partitions(of: topic) }
    try await reader.assign(
        Dictionary(uniqueKeysWithValues: assigned.map { (TopicPartition(topic, $0), KafkaOffset.beginning) }))
    var records: [KafkaRecord] = []
    let deadline = ContinuousClock.now + limit
    while records.count < count, ContinuousClock.now < deadline {
        records += try await reader.poll(maxRecords: 500, timeout: .milliseconds(200))
    }
    _ = await reader.close(timeout: .seconds(5))
    return records
}
