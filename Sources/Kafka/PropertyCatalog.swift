internal import CRdKafka

/// What librdkafka itself says about a property name and value: asked through `rd_kafka_conf_set` on a scratch
/// configuration, so the answer is the installed library's own (2.0.2's property table), never a copied list.
public enum PropertyCheck: Sendable, Equatable {
    /// A property librdkafka knows, with a value it takes.
    case valid
    /// Not a librdkafka property (`RD_KAFKA_CONF_UNKNOWN`), e.g. `port` from Kubernetes' `KAFKA_PORT`.
    case unknown
    /// A known property with a value librdkafka refuses; the reason is librdkafka's text.
    case invalid(reason: String)
}

extension KafkaConfiguration {
    /// Whether `name` is a librdkafka property and takes `value`.
    public static func check(property name: String, value: String) -> PropertyCheck {
        guard let scratch = rd_kafka_conf_new() else { return .invalid(reason: "cannot allocate a configuration") }
        defer { rd_kafka_conf_destroy(scratch) }
        var errorText = [CChar](repeating: 0, count: 512)
        switch rd_kafka_conf_set(scratch, name, value, &errorText, errorText.count) {
        case RD_KAFKA_CONF_OK: return .valid
        case RD_KAFKA_CONF_UNKNOWN: return .unknown
        default: return .invalid(reason: errorText.nulTerminatedString)
        }
    }

    /// The properties librdkafka 2.0.2 marks `_RK_SENSITIVE` in `rdkafka_conf.c` (no public API exposes the
    /// flag), plus the newer secrets of the same families, which 2.0.2 does not flag.
    public static let sensitiveProperties: Set<String> = [
        "ssl.key.location", "ssl.key.password", "ssl.key.pem", "ssl_key", "ssl.ca.pem", "ssl.keystore.password",
        "sasl.username", "sasl.password", "sasl.oauthbearer.config",
        // Not flagged by 2.0.2, secret all the same.
        "ssl.keystore.location", "sasl.oauthbearer.client.secret", "sasl.jaas.config",
    ]
}
