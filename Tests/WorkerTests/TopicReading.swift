import Foundation
import Kafka
import KafkaTypes

/// Records of `topic` (partitions 0 and 1, from the start) until `count` arrived or `limit` passed.
func readRecords(_ kafka: KafkaConfiguration, topic: String, count: Int, within limit: Duration) async throws
    -> [KafkaRecord]
{
    let reader = try KafkaConsumer(
        configuration: kafka.merging(KafkaConfiguration(["group.id": "reader-\(UUID().uuidString.prefix(8))"])))
    try await reader.assign([TopicPartition(topic, 0): .beginning, TopicPartition(topic, 1): .beginning])
    var records: [KafkaRecord] = []
    let deadline = ContinuousClock.now + limit
    while records.count < count, ContinuousClock.now < deadline {
        records += try await reader.poll(maxRecords: 500, timeout: .milliseconds(200))
    }
    _ = await reader.close(timeout: .seconds(5))
    return records
}
