import Kafka
import Testing

@testable import Configuration

/// Kubernetes' service-link variables (`KAFKA_PORT`, …) against librdkafka: a producer is made of what is left,
/// and it resolves and connects to its bootstrap servers.
@Suite struct KafkaServiceLinkTests {
    @Test func kubernetesServiceLinksNeverBecomeProperties() {
        let environment = [
            "KAFKA_BOOTSTRAP_SERVERS": "kafka:9092", "KAFKA_PORT": "tcp://10.0.0.7:9092",
            "KAFKA_SERVICE_HOST": "10.0.0.7", "KAFKA_SERVICE_PORT": "9092",
            "KAFKA_PORT_9092_TCP": "tcp://10.0.0.7:9092", "KAFKA_PORT_9092_TCP_ADDR": "10.0.0.7",
            "KAFKA_PORT_9092_TCP_PORT": "9092", "KAFKA_PORT_9092_TCP_PROTO": "tcp",
        ]
        let read = KafkaEnvironment.read(environment)
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
}
