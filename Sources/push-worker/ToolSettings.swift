import Kafka
import Observability
import PushPipeline
import Worker

/// The settings the `receipts` commands share with `run`: the environment, with a `--config`
/// file's `NAME=value` lines under it, and the librdkafka properties and topics read from them.
struct ToolSettings {
    let variables: [String: String]
    /// The librdkafka properties from `KAFKA_*`, as `run` reads them (variables that name no librdkafka
    /// property, such as Kubernetes' `KAFKA_PORT`, are left out).
    let kafka: KafkaConfiguration

    /// Reads the environment and the `--config` file; the error names the file, its bad line, or the `KAFKA_*`
    /// variable whose value librdkafka refuses.
    init(environment: [String: String], configFile: String?) throws(InvalidSetting) {
        variables = try WorkerService.variables(environment: environment, configFile: configFile)
        let properties = KafkaConfiguration.fromEnvironment(variables)
        if let invalid = properties.invalid.first {
            throw InvalidSetting(variable: invalid.variable, reason: invalid.reason)
        }
        kafka = properties.configuration
    }

    /// A topic variable's value, or its default when unset or empty.
    func topic(_ variable: String, default defaultTopic: String) -> String {
        guard let value = variables[variable], !value.isEmpty else { return defaultTopic }
        return value
    }
}
