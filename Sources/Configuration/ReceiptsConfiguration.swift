public import Kafka
import PushPipeline

/// What the `receipts` commands are configured with: the brokers and security settings of `KAFKA_*` as `run`
/// reads them, and the topics they read, from the environment and the `--config` file.
public struct ReceiptsConfiguration: Sendable {
    /// The librdkafka properties from `KAFKA_*` (variables that name no librdkafka property, such as Kubernetes'
    /// `KAFKA_PORT`, are left out).
    public var kafka: KafkaConfiguration
    /// `PUSH_RECEIPTS_TOPIC` (default `push.receipts`).
    public var receiptsTopic: String
    /// `PUSH_INVALID_TOKENS_TOPIC` (default `push.invalid-tokens`).
    public var invalidTokensTopic: String

    /// Reads and checks the settings; the error names the file, its bad line, or the variable.
    public static func load(
        environment: [String: String], configFile: String?, files: some FileReading = SystemFileReading()
    ) throws(InvalidSetting) -> ReceiptsConfiguration {
        let reader = try SettingReader(environment: environment, configFile: configFile, files: files)
        return ReceiptsConfiguration(
            kafka: try reader.kafkaProperties().configuration,
            receiptsTopic: try reader.topic("PUSH_RECEIPTS_TOPIC", default: "push.receipts"),
            invalidTokensTopic: try reader.topic("PUSH_INVALID_TOKENS_TOPIC", default: "push.invalid-tokens"))
    }
}
