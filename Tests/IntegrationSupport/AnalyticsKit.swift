import Essentials
import Foundation
public import PushCore
import TestSupport

/// The ClickHouse analytics kit (`deploy/analytics`) run in embedded ClickHouse by `chdb_check.py`, on records
/// of the receipts topic: its answer, shaped like `receipts stats --format json`.
public enum AnalyticsKit {
    /// One record of the receipts topic, as the kit's Kafka engine would read it.
    public struct Record: Sendable {
        public var topic: String
        public var partition: Int32
        public var offset: Int64
        public var timestampMillis: Int64?
        public var value: String

        public init(topic: String, partition: Int32, offset: Int64, timestampMillis: Int64?, value: String) {
            self.topic = topic
            self.partition = partition
            self.offset = offset
            self.timestampMillis = timestampMillis
            self.value = value
        }
    }

    /// Loads `records` into the kit and runs every query over all time and every run.
    public static func report(_ records: [Record]) async throws -> JSONValue {
        let file = FileManager.default.temporaryDirectory.appending(path: "receipt-records-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        let lines = records.map { record in
            var writer = JSONWriter()
            writer.beginObject()
            writer.field("topic", record.topic)
            writer.field("partition", Int(record.partition))
            writer.field("offset", Int(record.offset))
            writer.key("timestampMs")
            if let timestamp = record.timestampMillis { writer.integer(timestamp) } else { writer.null() }
            writer.field("value", record.value)
            writer.endObject()
            return writer.text
        }
        try Data(lines.joined(separator: "\n").utf8).write(to: file)
        let result = try await ChildProcessResult.run(
            Repository.python, [Repository.path("deploy/analytics/chdb_check.py").path, "--records", file.path])
        guard result.status == 0 else { throw KitFailure(stderr: String(result.stderr.suffix(2000))) }
        return try JSONParser.parse(Array(result.stdout.utf8))
    }

    /// `chdb_check.py` failed; its last error output.
    public struct KitFailure: Error, CustomStringConvertible {
        public let stderr: String
        public var description: String { "chdb_check: \(stderr)" }
    }
}
