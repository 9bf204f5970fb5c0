public import Kafka

/// What the `devices` commands are configured with: the brokers and security settings of `KAFKA_*` as `run` reads
/// them, and the registry's topics, from the environment and the `--config` file.
public struct DevicesConfiguration: Sendable {
    public var kafka: KafkaConfiguration
    public var registry: RegistryConfiguration

    /// Reads and checks the settings; the error names the file, its bad line, or the variable.
    public static func load(
        environment: [String: String], configFile: String?, files: some FileReading = SystemFileReading()
    ) throws(InvalidSetting) -> DevicesConfiguration {
        let reader = try SettingReader(environment: environment, configFile: configFile, files: files)
        return DevicesConfiguration(
            kafka: try reader.kafkaProperties().configuration,
            registry: try reader.registryConfiguration(inputTopics: []))
    }
}
