internal import CRdKafka

/// The librdkafka this process runs with: the one the dynamic linker loaded, which may be newer than the headers
/// the binary was built against (Debian's 2.0.2; the C ABI is stable across 2.x).
public enum KafkaLibrary {
    /// librdkafka's version, e.g. `2.0.2` (`rd_kafka_version_str`).
    public static var version: String { String(libraryText: rd_kafka_version_str()) ?? "unknown" }

    /// librdkafka's version as a number, `0xMMmmrrpp` (`rd_kafka_version`): 2.0.2 is `0x020002ff`.
    public static var versionNumber: Int { Int(rd_kafka_version()) }

    /// The first version that reads tagged fields in `ApiVersions` v3 answers and repeats no more on cooperative
    /// rebalances than later ones: 2.2.0.
    public static let firstCurrentVersion = 0x0202_0000

    /// What running on the librdkafka of `versionNumber` costs, or nil from 2.2.0 on.
    public static func shortcoming(ofVersion versionNumber: Int) -> String? {
        guard versionNumber < firstCurrentVersion else { return nil }
        return "librdkafka below 2.2: cooperative rebalances repeat more pushes, and brokers whose ApiVersions "
            + "answer has tagged fields (Tansu among them) cannot be reached"
    }
}
