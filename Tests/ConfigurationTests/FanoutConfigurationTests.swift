import Testing

@testable import Configuration

@Suite struct FanoutConfigurationTests {
    static func load(_ overrides: [String: String]) throws(InvalidSetting) -> WorkerConfiguration {
        try WorkerConfiguration.load(environment: ConfigurationTests.fcmOnly.merging(overrides) { $1 })
    }

    @Test func theWholeRegistryOnEveryWorkerIsTheDefault() throws {
        let fanout = try Self.load([:]).fanout
        #expect(fanout.scope == .all)
        #expect(fanout.topic == "push.fanout")
        #expect(fanout.group == "push-worker.fanout")
    }

    @Test func theFanoutGroupFollowsTheWorkersGroupUnlessSet() throws {
        #expect(try Self.load(["KAFKA_GROUP_ID": "pushers"]).fanout.group == "pushers.fanout")
        #expect(try Self.load(["PUSH_FANOUT_GROUP_ID": "resolvers"]).fanout.group == "resolvers")
    }

    @Test func theAssignedScopeAndItsTopicAreRead() throws {
        let fanout = try Self.load(["PUSH_REGISTRY_SCOPE": "assigned", "PUSH_FANOUT_TOPIC": "tenant.fanout"]).fanout
        #expect(fanout.scope == .assigned)
        #expect(fanout.topic == "tenant.fanout")
    }

    @Test(arguments: [
        (["PUSH_REGISTRY_SCOPE": "some"], "PUSH_REGISTRY_SCOPE", "is not one of all, assigned"),
        (["PUSH_FANOUT_TOPIC": "chat.messages"], "PUSH_FANOUT_TOPIC", "also PUSH_TOPICS's topic"),
        (["PUSH_FANOUT_TOPIC": "push.devices"], "PUSH_FANOUT_TOPIC", "also PUSH_DEVICES_TOPIC's topic"),
        (["PUSH_FANOUT_TOPIC": "push.receipts"], "PUSH_FANOUT_TOPIC", "also PUSH_RECEIPTS_TOPIC's topic"),
        (["PUSH_FANOUT_TOPIC": "push.retry-1000"], "PUSH_FANOUT_TOPIC", "also PUSH_RETRY_TOPIC's topic"),
        (["PUSH_FANOUT_GROUP_ID": "push-worker"], "PUSH_FANOUT_GROUP_ID", "must differ from KAFKA_GROUP_ID"),
    ])
    func aFanoutThatWouldShareATopicOrTheGroupIsRefused(
        overrides: [String: String], variable: String, reason: String
    ) {
        let error = #expect(throws: InvalidSetting.self) { try Self.load(overrides) }
        #expect(error?.variable == variable)
        #expect(error?.reason.contains(reason) == true)
    }
}
