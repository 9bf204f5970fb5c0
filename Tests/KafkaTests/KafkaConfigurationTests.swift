import Kafka
import Testing

@Suite struct KafkaConfigurationTests {
    @Test(arguments: [
        ("KAFKA_BOOTSTRAP_SERVERS", "bootstrap.servers"),
        ("KAFKA_SASL_MECHANISM", "sasl.mechanism"),
        ("KAFKA_GROUP_ID", "group.id"),
        ("KAFKA_SECURITY_PROTOCOL", "security.protocol"),
        ("KAFKA_SSL_CA_LOCATION", "ssl.ca.location"),
    ])
    func kafkaEnvironmentVariablesMapToLibrdkafkaProperties(variable: String, property: String) {
        #expect(KafkaConfiguration.propertyName(forEnvironmentVariable: variable) == property)
    }

    @Test(arguments: ["KAFKA_", "PUSH_TOPICS", "kafka_bootstrap_servers", "APNS_URL", "XKAFKA_ACKS"])
    func otherVariablesAreIgnored(variable: String) {
        #expect(KafkaConfiguration.propertyName(forEnvironmentVariable: variable) == nil)
    }

    @Test func environmentBecomesPropertiesAndWinsOverDefaults() {
        let environment = ["KAFKA_BOOTSTRAP_SERVERS": "kafka:9092", "KAFKA_ACKS": "1", "HOME": "/root"]
        let configuration = KafkaConfiguration.fromEnvironment(environment).configuration
        #expect(configuration.properties == ["bootstrap.servers": "kafka:9092", "acks": "1"])
        let merged = KafkaConfiguration(KafkaConfiguration.producerDefaults).merging(configuration)
        #expect(merged["acks"] == "1")
        #expect(merged["enable.idempotence"] == "true")
    }

    @Test func kubernetesServiceLinksNeverBecomeProperties() {
        let environment = [
            "KAFKA_BOOTSTRAP_SERVERS": "kafka:9092", "KAFKA_PORT": "tcp://10.0.0.7:9092",
            "KAFKA_SERVICE_HOST": "10.0.0.7", "KAFKA_SERVICE_PORT": "9092",
            "KAFKA_PORT_9092_TCP": "tcp://10.0.0.7:9092", "KAFKA_PORT_9092_TCP_ADDR": "10.0.0.7",
            "KAFKA_PORT_9092_TCP_PORT": "9092", "KAFKA_PORT_9092_TCP_PROTO": "tcp",
        ]
        let read = KafkaConfiguration.fromEnvironment(environment)
        #expect(read.configuration.properties == ["bootstrap.servers": "kafka:9092"])
        #expect(
            read.ignored == [
                "KAFKA_PORT", "KAFKA_PORT_9092_TCP", "KAFKA_PORT_9092_TCP_ADDR", "KAFKA_PORT_9092_TCP_PORT",
                "KAFKA_PORT_9092_TCP_PROTO", "KAFKA_SERVICE_HOST", "KAFKA_SERVICE_PORT",
            ])
        #expect(read.invalid.isEmpty)
        // What librdkafka is given is accepted by it.
        #expect(throws: Never.self) { try KafkaProducer(configuration: read.configuration) }
    }

    @Test func aValueLibrdkafkaRefusesIsReportedWithItsVariable() {
        let read = KafkaConfiguration.fromEnvironment(["KAFKA_LINGER_MS": "soon", "KAFKA_ACKS": "all"])
        #expect(read.invalid.map(\.variable) == ["KAFKA_LINGER_MS"])
        #expect(read.invalid.first?.reason.isEmpty == false)
        #expect(read.configuration.properties == ["acks": "all"])
    }

    @Test(arguments: [
        ("bootstrap.servers", "a:1", PropertyCheck.valid), ("port", "tcp://x:1", .unknown),
        ("service.host", "10.0.0.1", .unknown),
    ])
    func librdkafkaDecidesWhatIsAProperty(name: String, value: String, expected: PropertyCheck) {
        #expect(KafkaConfiguration.check(property: name, value: value) == expected)
    }

    @Test func defaultsAreTheAtLeastOnceSettings() {
        let consumer = KafkaConfiguration.consumerDefaults
        #expect(consumer["partition.assignment.strategy"] == "cooperative-sticky")
        #expect(consumer["enable.auto.commit"] == "true")
        #expect(consumer["bootstrap.servers"] == "localhost:9092")
        #expect(consumer["group.id"] == "push-worker")
        let producer = KafkaConfiguration.producerDefaults
        #expect(producer["enable.idempotence"] == "true")
        #expect(producer["acks"] == "all")
    }

    @Test func consumerAlwaysStoresOffsetsManually() throws {
        let consumer = try KafkaConsumer(configuration: KafkaConfiguration(["enable.auto.offset.store": "true"]))
        #expect(consumer.properties["enable.auto.offset.store"] == "false")
    }

    /// Every property librdkafka 2.0.2 flags `_RK_SENSITIVE`, and the secrets of the same families it does not.
    @Test(arguments: [
        "sasl.password", "sasl.username", "sasl.oauthbearer.config", "sasl.oauthbearer.client.secret",
        "ssl.key.password", "ssl.key.pem", "ssl.key.location", "ssl.keystore.password", "ssl.keystore.location",
        "ssl.ca.pem", "sasl.jaas.config",
    ])
    func everySensitivePropertyIsRedacted(property: String) {
        let text = KafkaConfiguration([property: "s3cr3t-value", "acks": "all"]).description
        #expect(!text.contains("s3cr3t-value"))
        #expect(text.contains("\(property)=<redacted>"))
        #expect(text.contains("acks=all"))
    }

    @Test(arguments: ["ssl.ca.location", "sasl.mechanism", "security.protocol", "ssl.certificate.location"])
    func plainPropertiesArePrinted(property: String) {
        #expect(KafkaConfiguration([property: "shown"]).description == "\(property)=shown")
    }

    @Test func printingRedactsSecrets() {
        let configuration = KafkaConfiguration([
            "sasl.password": "hunter2", "sasl.mechanism": "PLAIN", "ssl.key.pem": "-----BEGIN", "acks": "all",
        ])
        let text = configuration.description
        #expect(!text.contains("hunter2"))
        #expect(!text.contains("BEGIN"))
        #expect(text.contains("sasl.mechanism=PLAIN"))
        #expect(text.contains("sasl.password=<redacted>"))
    }

    @Test func unknownPropertyIsAnErrorNamingIt() {
        let error = #expect(throws: KafkaError.self) {
            try KafkaProducer(configuration: KafkaConfiguration(["no.such.thing": "1"]))
        }
        #expect(error?.message.contains("no.such.thing") == true)
        #expect(error?.code == .invalidArgument)
    }
}
