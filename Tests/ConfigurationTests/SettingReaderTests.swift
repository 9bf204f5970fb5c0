import Kafka
import Observability
import StatusServer
import Testing

@testable import Configuration

/// The settings every command reads the same way: `LOG_LEVEL`, the status endpoints, `KAFKA_*` and `--config`.
@Suite struct SettingReaderTests {
    static func reader(_ variables: [String: String]) -> SettingReader { SettingReader(variables: variables) }

    @Test func theLogLevelDefaultsToInfoAndNamesTheVariableWhenInvalid() throws {
        #expect(try Self.reader([:]).logLevel() == .info)
        #expect(try Self.reader([:]).logLevel(default: .warning) == .warning)
        #expect(try Self.reader(["LOG_LEVEL": "WARN"]).logLevel() == .warning)
        let error = #expect(throws: InvalidSetting.self) { try Self.reader(["LOG_LEVEL": "loud"]).logLevel() }
        #expect(
            error?.description
                == "invalid LOG_LEVEL: 'loud' is not one of trace, debug, info, notice, warning, error, critical")
    }

    @Test func readsPortAndHostOfTheStatusEndpointsWithDefaults() throws {
        let defaults = try Self.reader([:]).statusServer()
        #expect(defaults.port == 9464)
        #expect(defaults.host == "0.0.0.0")
        let configured = try Self.reader(["PUSH_HTTP_PORT": "9100", "PUSH_HTTP_HOST": "::"]).statusServer()
        #expect(configured.port == 9100)
        #expect(configured.host == "::")
    }

    @Test(arguments: [
        ("PUSH_HTTP_PORT", "http", "invalid PUSH_HTTP_PORT: 'http' is not a port number (0-65535)"),
        ("PUSH_HTTP_PORT", "70000", "invalid PUSH_HTTP_PORT: '70000' is not a port number (0-65535)"),
        ("PUSH_HTTP_HOST", "localhost", "invalid PUSH_HTTP_HOST: 'localhost' is not a numeric IPv4 or IPv6 address"),
    ])
    func namesTheVariableOfABadStatusSetting(variable: String, value: String, message: String) {
        let error = #expect(throws: InvalidSetting.self) { try Self.reader([variable: value]).statusServer() }
        #expect(error?.description == message)
    }

    @Test(arguments: [
        ("KAFKA_BOOTSTRAP_SERVERS", "bootstrap.servers"),
        ("KAFKA_SASL_MECHANISM", "sasl.mechanism"),
        ("KAFKA_GROUP_ID", "group.id"),
        ("KAFKA_SECURITY_PROTOCOL", "security.protocol"),
        ("KAFKA_SSL_CA_LOCATION", "ssl.ca.location"),
    ])
    func kafkaEnvironmentVariablesMapToLibrdkafkaProperties(variable: String, property: String) {
        #expect(KafkaEnvironment.propertyName(forVariable: variable) == property)
    }

    @Test(arguments: ["KAFKA_", "PUSH_TOPICS", "kafka_bootstrap_servers", "APNS_URL", "XKAFKA_ACKS"])
    func otherVariablesAreNoKafkaProperty(variable: String) {
        #expect(KafkaEnvironment.propertyName(forVariable: variable) == nil)
    }

    @Test func kafkaVariablesBecomePropertiesThatWinOverDefaults() {
        let environment = ["KAFKA_BOOTSTRAP_SERVERS": "kafka:9092", "KAFKA_ACKS": "1", "HOME": "/root"]
        let configuration = KafkaEnvironment.read(environment).configuration
        #expect(configuration.properties == ["bootstrap.servers": "kafka:9092", "acks": "1"])
        let merged = KafkaConfiguration(KafkaConfiguration.producerDefaults).merging(configuration)
        #expect(merged["acks"] == "1")
        #expect(merged["enable.idempotence"] == "true")
    }

    @Test func aKafkaValueLibrdkafkaRefusesIsTheErrorOfItsVariable() {
        let read = KafkaEnvironment.read(["KAFKA_LINGER_MS": "soon", "KAFKA_ACKS": "all"])
        #expect(read.invalid.map(\.variable) == ["KAFKA_LINGER_MS"])
        #expect(read.invalid.first?.reason.isEmpty == false)
        #expect(read.configuration.properties == ["acks": "all"])
        let error = #expect(throws: InvalidSetting.self) {
            try Self.reader(["KAFKA_LINGER_MS": "soon"]).kafkaProperties()
        }
        #expect(error?.variable == "KAFKA_LINGER_MS")
    }
}
