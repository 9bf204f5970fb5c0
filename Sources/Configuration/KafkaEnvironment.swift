import Kafka
import PushPipeline

/// The `KAFKA_*` environment variables as librdkafka properties.
enum KafkaEnvironment {
    /// The `KAFKA_*` variables read as librdkafka properties, with the variables that are not.
    struct Properties: Sendable {
        /// The variables that name a librdkafka property and hold a value it takes.
        var configuration: KafkaConfiguration
        /// `KAFKA_*` variables that name no librdkafka property, sorted.
        var ignored: [String]
        /// `KAFKA_*` variables whose value librdkafka refuses, sorted, with its reason.
        var invalid: [(variable: String, reason: String)]
    }

    /// The `KAFKA_*` variables of `variables` that name a real librdkafka property, as properties: the prefix
    /// dropped, the rest lower-cased with `_` turned into `.` (`KAFKA_SASL_MECHANISM` → `sasl.mechanism`,
    /// `KAFKA_BOOTSTRAP_SERVERS` → `bootstrap.servers`). Variables whose name is no property (Kubernetes' service
    /// links `KAFKA_PORT`, `KAFKA_SERVICE_HOST`, `KAFKA_PORT_9092_TCP_ADDR`, …) are left out and listed in
    /// `ignored`; a property with a value librdkafka refuses is listed in `invalid` with librdkafka's reason.
    static func read(_ variables: [String: String]) -> Properties {
        var result = Properties(configuration: KafkaConfiguration(), ignored: [], invalid: [])
        for (name, value) in variables.sorted(by: { $0.key < $1.key }) {
            guard let property = propertyName(forVariable: name) else { continue }
            switch KafkaConfiguration.check(property: property, value: value) {
            case .valid: result.configuration.properties[property] = value
            case .unknown: result.ignored.append(name)
            case .invalid(let reason):
                // librdkafka's text may quote the value: never for a secret.
                let shown =
                    KafkaConfiguration.isSecret(property) ? "librdkafka refuses the value of \(property)" : reason
                result.invalid.append((variable: name, reason: shown))
            }
        }
        return result
    }

    /// The librdkafka property a `KAFKA_*` variable sets, or `nil` for any other variable.
    static func propertyName(forVariable name: String) -> String? {
        let prefix = "KAFKA_"
        guard name.hasPrefix(prefix), name.count > prefix.count else { return nil }
        return String(name.dropFirst(prefix.count).lowercased().map { $0 == "_" ? "." : $0 })
    }
}
