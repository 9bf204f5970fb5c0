import Kafka
import Testing

/// The properties a consumer is created with (a consumer connects to its bootstrap servers).
@Suite struct ConsumerPropertiesTests {
    @Test func consumerAlwaysStoresOffsetsManually() throws {
        let consumer = try KafkaConsumer(configuration: KafkaConfiguration(["enable.auto.offset.store": "true"]))
        #expect(consumer.properties["enable.auto.offset.store"] == "false")
    }
}
