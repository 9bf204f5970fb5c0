package import DeviceRegistry
package import KafkaTypes
import PushCore
package import PushPipeline

/// The record sink that unsubscribes dead tokens: beside each invalid-token record the pipeline writes, the
/// tombstone of every registry key whose current token is the dead one, in the same batch (acknowledged with it).
///
/// Only keys that still hold the dead token are tombstoned: a device that subscribed again with a new token keeps
/// its subscription. A device re-subscribed between this check and the tombstone's write is lost; the app
/// subscribes again at its next start. A tombstone goes where `placement` puts its key's records. With a `route`
/// (the `assigned` scope), a dead token whose client's registry partition is not restored here goes, in the same
/// batch, as an unsubscribe request to the pod that holds it.
package struct UnsubscribingDeadTokens: RecordSink {
    let inner: any RecordSink
    let holders: any TokenHolders
    let invalidTokensTopic: String
    let placement: RegistryPlacement
    let route: DeadTokenRoute?

    package init(
        inner: any RecordSink, holders: any TokenHolders, invalidTokensTopic: String, placement: RegistryPlacement,
        route: DeadTokenRoute? = nil
    ) {
        self.inner = inner
        self.holders = holders
        self.invalidTokensTopic = invalidTokensTopic
        self.placement = placement
        self.route = route
    }

    package func produce(_ records: [KafkaProducerRecord]) async throws {
        var unsubscribes: [KafkaProducerRecord] = []
        for record in records where record.topic == invalidTokensTopic {
            unsubscribes += try await self.unsubscribes(for: record)
        }
        guard !unsubscribes.isEmpty else { return try await inner.produce(records) }
        do {
            try await inner.produce(records + unsubscribes)
        } catch let rejected as OutputRejected {
            let refused = rejected.indices.filter { $0 < records.count }
            guard !refused.isEmpty else { return }
            throw OutputRejected(indices: refused, reason: rejected.reason)
        }
    }

    package func flush(timeout: Duration) async { await inner.flush(timeout: timeout) }

    /// The tombstones of the keys holding the dead token of `record` (an invalid-token record) here, and its
    /// unsubscribe request when it is routed.
    private func unsubscribes(for record: KafkaProducerRecord) async throws -> [KafkaProducerRecord] {
        guard let dead = InvalidTokenRecord(json: record.value),
            let platform = Platform(rawValue: dead.platform)
        else { return [] }
        var unsubscribes: [KafkaProducerRecord] = []
        for key in holders.keys(ofClient: dead.userId, holding: dead.token, on: platform) {
            unsubscribes.append(try await placement.record(key, value: []))
        }
        if let route, let appID = dead.appID, let request = route.request(for: dead, appID: appID, platform: platform) {
            unsubscribes.append(request)
        }
        return unsubscribes
    }
}
