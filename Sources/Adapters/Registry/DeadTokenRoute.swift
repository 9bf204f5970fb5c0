package import DeviceRegistry
package import KafkaTypes
package import PushCore
package import PushPipeline

/// Where the `assigned` scope sends a dead token whose client's registry partition is not restored on the pod that
/// found it (a retry record's send, made by the input stage on whichever pod holds its retry partition): an
/// `UnsubscribeRequest` on the fan-out topic, in the client's partition, which the pod holding that partition
/// applies (`UnsubscribeRequestPlanner`).
package struct DeadTokenRoute: Sendable {
    let fanoutTopic: String
    /// The co-partitioned topics' partition count.
    let partitions: Int
    /// The token holders of a registry partition restored here; `nil` for one that is not.
    let holders: @Sendable (Int32) -> (any TokenHolders)?
    let counts: UnsubscribeRequestCounts

    package init(
        fanoutTopic: String, partitions: Int, holders: @escaping @Sendable (Int32) -> (any TokenHolders)?,
        counts: UnsubscribeRequestCounts
    ) {
        self.fanoutTopic = fanoutTopic
        self.partitions = partitions
        self.holders = holders
        self.counts = counts
    }

    /// The request for `dead`, whose send was of app `appID`; `nil` when its client's registry partition is restored
    /// here (its keys are deleted here, as in the `all` scope).
    package func request(for dead: InvalidTokenRecord, appID: String, platform: Platform) -> KafkaProducerRecord? {
        let client = ClientKey(appID: appID, clientID: dead.userId)
        guard holders(ClientPartitioner.partition(of: client, partitions: partitions)) == nil else { return nil }
        counts.count(.routed)
        return UnsubscribeRequest(client: client, platform: platform, token: dead.token, messageId: dead.messageId)
            .record(topic: fanoutTopic, partitions: partitions)
    }
}
