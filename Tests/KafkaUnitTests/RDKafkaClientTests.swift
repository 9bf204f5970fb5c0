import Synchronization
import Testing

@testable import Kafka

@Suite struct RDKafkaClientTests {
    /// `acks` and `request.required.acks` are one librdkafka setting: a given name overrides a default set under the
    /// other, whichever sorts first.
    @Test func aGivenAliasOverridesTheDefaultUnderItsOtherName() throws {
        let sortsFirst = try RDKafkaClient(
            .producer, defaults: ["request.required.acks": "-1"], properties: ["acks": "1"], callbacks: .init())
        #expect(sortsFirst.property("request.required.acks") == "1")
        let sortsLast = try RDKafkaClient(
            .producer, defaults: ["acks": "-1"], properties: ["request.required.acks": "1"], callbacks: .init())
        #expect(sortsLast.property("acks") == "1")
    }

    @Test func defaultsFillWhatIsNotGiven() throws {
        let client = try RDKafkaClient(
            .producer, defaults: ["linger.ms": "7", "acks": "-1"], properties: ["acks": "0"], callbacks: .init())
        #expect(client.property("linger.ms") == "7")
        #expect(client.property("acks") == "0")
    }
}

@Suite struct DeprecatedPropertyTests {
    /// `auto.commit.enable` is librdkafka's topic-level property of its legacy consumer: librdkafka says so when the
    /// consumer is created, through the log handler (the worker's log), since the group consumer does not read it.
    @Test func aDeprecatedPropertyIsWarnedAboutInTheLog() throws {
        let lines = Mutex<[KafkaLogMessage]>([])
        let consumer = try KafkaConsumer(
            configuration: KafkaConfiguration(["auto.commit.enable": "false", "bootstrap.servers": "127.0.0.1:1"]),
            logHandler: { line in lines.withLock { $0.append(line) } })
        let warnings = lines.withLock { $0 }.filter { $0.severity == 4 && $0.facility == "CONFWARN" }
        #expect(warnings.contains { $0.message.contains("auto.commit.enable") && $0.message.contains("deprecated") })
        #expect(consumer.properties["enable.auto.commit"] == "true")
    }
}
