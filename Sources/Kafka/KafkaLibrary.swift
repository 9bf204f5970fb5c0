internal import CRdKafka

/// The librdkafka this process runs with.
public enum KafkaLibrary {
    /// librdkafka's version, e.g. `2.0.2` (`rd_kafka_version_str`).
    public static var version: String { String(libraryText: rd_kafka_version_str()) ?? "unknown" }
}
