/// librdkafka properties as a string map, with documented defaults and `KAFKA_*` environment mapping.
///
/// Any librdkafka property may be set (`properties["socket.timeout.ms"] = "10000"`); the defaults below
/// only fill what is not given. Printing a configuration redacts secrets.
public struct KafkaConfiguration: Sendable, Equatable, CustomStringConvertible {
    /// The librdkafka properties, by their librdkafka names.
    public var properties: [String: String]

    public init(_ properties: [String: String] = [:]) {
        self.properties = properties
    }

    public subscript(property: String) -> String? {
        get { properties[property] }
        set { properties[property] = newValue }
    }

    /// This configuration with `other`'s properties added, `other` winning where both set one.
    public func merging(_ other: KafkaConfiguration) -> KafkaConfiguration {
        KafkaConfiguration(properties.merging(other.properties) { _, new in new })
    }

    /// Defaults for every client: where the brokers are.
    public static let clientDefaults: [String: String] = [
        "bootstrap.servers": "localhost:9092"
    ]

    /// Consumer defaults, chosen for at-least-once processing in a horizontally scaled group.
    ///
    /// - `group.id=push-worker`
    /// - `partition.assignment.strategy=cooperative-sticky`: a group cannot mix eager and cooperative
    ///   assignors, so it is chosen from the first release; a rebalance only moves the partitions that change.
    /// - `enable.auto.commit=true`, `auto.commit.interval.ms=5000`: librdkafka commits the *stored* offsets
    ///   periodically and when partitions are unassigned.
    /// - `auto.offset.reset=earliest`: a partition without a committed offset starts at its oldest record.
    /// - `statistics.interval.ms=5000`: feeds `KafkaConsumer.lag`.
    /// - `enable.auto.offset.store=false` is always set, whatever is configured: the application stores an
    ///   offset only when its record is done (`KafkaConsumer.storeOffset`).
    public static let consumerDefaults: [String: String] = clientDefaults.merging([
        "group.id": "push-worker",
        "partition.assignment.strategy": "cooperative-sticky",
        "enable.auto.commit": "true",
        "auto.commit.interval.ms": "5000",
        "auto.offset.reset": "earliest",
        "statistics.interval.ms": "5000",
    ]) { _, new in new }

    /// Producer defaults: `enable.idempotence=true` and `acks=all`, so librdkafka's retries never duplicate
    /// or reorder records within a partition and a delivery report means the write is on every in-sync replica.
    public static let producerDefaults: [String: String] = clientDefaults.merging([
        "enable.idempotence": "true",
        "acks": "all",
    ]) { _, new in new }

    /// The `KAFKA_*` variables of `environment` that name a real librdkafka property, as properties: the prefix
    /// dropped, the rest lower-cased with `_` turned into `.` (`KAFKA_SASL_MECHANISM` → `sasl.mechanism`,
    /// `KAFKA_BOOTSTRAP_SERVERS` → `bootstrap.servers`). Variables whose name is no property (Kubernetes' service
    /// links `KAFKA_PORT`, `KAFKA_SERVICE_HOST`, `KAFKA_PORT_9092_TCP_ADDR`, …) are left out and listed in
    /// `ignored`; a property with a value librdkafka refuses is listed in `invalid` with librdkafka's reason.
    public static func fromEnvironment(_ environment: [String: String]) -> EnvironmentProperties {
        var result = EnvironmentProperties(configuration: KafkaConfiguration(), ignored: [], invalid: [])
        for (name, value) in environment.sorted(by: { $0.key < $1.key }) {
            guard let property = propertyName(forEnvironmentVariable: name) else { continue }
            switch check(property: property, value: value) {
            case .valid: result.configuration.properties[property] = value
            case .unknown: result.ignored.append(name)
            case .invalid(let reason):
                // librdkafka's text may quote the value: never for a secret.
                let shown = isSecret(property) ? "librdkafka refuses the value of \(property)" : reason
                result.invalid.append((variable: name, reason: shown))
            }
        }
        return result
    }

    /// The `KAFKA_*` environment read as librdkafka properties, with the variables that are not.
    public struct EnvironmentProperties: Sendable {
        /// The variables that name a librdkafka property and hold a value it takes.
        public var configuration: KafkaConfiguration
        /// `KAFKA_*` variables that name no librdkafka property, sorted.
        public var ignored: [String]
        /// `KAFKA_*` variables whose value librdkafka refuses, sorted, with its reason.
        public var invalid: [(variable: String, reason: String)]
    }

    /// The librdkafka property a `KAFKA_*` variable sets, or `nil` for any other variable.
    public static func propertyName(forEnvironmentVariable name: String) -> String? {
        let prefix = "KAFKA_"
        guard name.hasPrefix(prefix), name.count > prefix.count else { return nil }
        return String(name.dropFirst(prefix.count)).lowercased().replacingUnderscores()
    }

    /// Whether a property holds a secret that must never be printed: librdkafka's own sensitive properties
    /// (`sensitiveProperties`), and any name that speaks of a password, secret, private key or JAAS/OAuth
    /// configuration, so that a property added by a later librdkafka is redacted too.
    public static func isSecret(_ property: String) -> Bool {
        sensitiveProperties.contains(property)
            || ["password", "secret", "jaas", "oauthbearer.config", ".key.", "token"].contains { property.contains($0) }
    }

    /// The properties sorted by name, with secret values shown as `<redacted>`.
    public var description: String {
        properties.keys.sorted().map { name in
            "\(name)=\(Self.isSecret(name) ? "<redacted>" : properties[name] ?? "")"
        }.joined(separator: ", ")
    }
}

extension String {
    fileprivate func replacingUnderscores() -> String {
        String(map { $0 == "_" ? "." : $0 })
    }
}
