import Kafka
import Testing

@Suite struct KafkaConfigurationTests {
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

    /// 8 MiB where a full queue is fetched again after 100 ms; 32 MiB, more than a second of work, where librdkafka
    /// waits a fixed second (before 2.4: the unit layer runs on 2.16 and on 2.0.2).
    @Test func pipelineInputBoundsWhatIsFetchedAheadUnlessConfigured() {
        let given = KafkaConfiguration(["bootstrap.servers": "a:1"]).forPipelineInput
        let backsOffBriefly = KafkaConfiguration.check(property: "fetch.queue.backoff.ms", value: "100") == .valid
        #expect(given["queued.max.messages.kbytes"] == (backsOffBriefly ? "8192" : "32768"))
        #expect(given["bootstrap.servers"] == "a:1")
        let configured = KafkaConfiguration(["queued.max.messages.kbytes": "65536"]).forPipelineInput
        #expect(configured["queued.max.messages.kbytes"] == "65536")
        #expect(KafkaConfiguration.check(property: "queued.max.messages.kbytes", value: "8192") == .valid)
        #expect(KafkaConfiguration.check(property: "queued.max.messages.kbytes", value: "32768") == .valid)
    }

    /// A full fetch queue is looked at again after 100 ms, not a second, where the running librdkafka can (2.4 and
    /// later; the unit layer runs on 2.16 and on 2.0.2, which has no such property and must not be given it).
    @Test func pipelineInputFetchesAgainSoonAfterItsQueueWasFullWhereLibrdkafkaCan() {
        let given = KafkaConfiguration(["bootstrap.servers": "a:1"]).forPipelineInput
        switch KafkaConfiguration.check(property: "fetch.queue.backoff.ms", value: "100") {
        case .valid: #expect(given["fetch.queue.backoff.ms"] == "100")
        default: #expect(given["fetch.queue.backoff.ms"] == nil)
        }
        let configured = KafkaConfiguration(["fetch.queue.backoff.ms": "500"]).forPipelineInput
        #expect(configured["fetch.queue.backoff.ms"] == "500")
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
