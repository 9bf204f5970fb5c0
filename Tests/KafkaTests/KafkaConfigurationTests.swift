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
        let configuration = KafkaConfiguration.fromEnvironment(environment)
        #expect(configuration.properties == ["bootstrap.servers": "kafka:9092", "acks": "1"])
        let merged = KafkaConfiguration(KafkaConfiguration.producerDefaults).merging(configuration)
        #expect(merged["acks"] == "1")
        #expect(merged["enable.idempotence"] == "true")
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
        #expect(throws: KafkaError.self) {
            try KafkaProducer(configuration: KafkaConfiguration(["no.such.thing": "1"]))
        }
        do {
            _ = try KafkaProducer(configuration: KafkaConfiguration(["no.such.thing": "1"]))
        } catch {
            #expect(error.message.contains("no.such.thing"))
            #expect(error.code == .invalidArgument)
        }
    }
}
