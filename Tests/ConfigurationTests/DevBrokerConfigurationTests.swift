import PushPipeline
import Testing

@testable import Configuration

@Suite struct DevBrokerConfigurationTests {
    /// A topic the mock cluster creates on first use has one partition: the dev broker creates every topic the
    /// fleet's defaults name, so each has `--partitions`.
    @Test func theDefaultTopicsAreEveryTopicTheFleetsDefaultsName() throws {
        let reader = SettingReader(variables: [:])
        let registry = try reader.registryConfiguration(inputTopics: ["chat.messages"])
        let receipts = try ReceiptsConfiguration.load(environment: [:], configFile: nil)
        let fanout = try reader.fanoutConfiguration(group: "push-worker", taken: [])
        let fleet =
            ["chat.messages", "push.dlq", receipts.receiptsTopic, receipts.invalidTokensTopic]
            + [registry.devicesTopic, registry.clientsTopic, fanout.topic] + RetryTiers(base: "push.retry").topics
        #expect(Set(DevBrokerConfiguration.defaultTopics) == Set(fleet))
        #expect(DevBrokerConfiguration.defaultTopics.count == fleet.count)
    }
}
