package import DeviceRegistry
package import KafkaTypes
import PushCore
package import PushPipeline

/// The record sink that unsubscribes dead tokens: beside each invalid-token record the pipeline writes, the
/// tombstone of every registry key whose current token is the dead one, in the same batch (acknowledged with it).
///
/// Only keys that still hold the dead token are tombstoned: a device that subscribed again with a new token keeps
/// its subscription. A device re-subscribed between this check and the tombstone's write is lost; the app
/// subscribes again at its next start. A tombstone goes where `placement` puts its key's records.
package struct UnsubscribingDeadTokens: RecordSink {
    let inner: any RecordSink
    let holders: any TokenHolders
    let invalidTokensTopic: String
    let placement: RegistryPlacement

    package init(
        inner: any RecordSink, holders: any TokenHolders, invalidTokensTopic: String, placement: RegistryPlacement
    ) {
        self.inner = inner
        self.holders = holders
        self.invalidTokensTopic = invalidTokensTopic
        self.placement = placement
    }

    package func produce(_ records: [KafkaProducerRecord]) async throws {
        var tombstones: [KafkaProducerRecord] = []
        for record in records { tombstones += try await self.tombstones(for: record) }
        guard !tombstones.isEmpty else { return try await inner.produce(records) }
        do {
            try await inner.produce(records + tombstones)
        } catch let rejected as OutputRejected {
            let refused = rejected.indices.filter { $0 < records.count }
            guard !refused.isEmpty else { return }
            throw OutputRejected(indices: refused, reason: rejected.reason)
        }
    }

    package func flush(timeout: Duration) async { await inner.flush(timeout: timeout) }

    private func tombstones(for record: KafkaProducerRecord) async throws -> [KafkaProducerRecord] {
        guard record.topic == invalidTokensTopic, let dead = InvalidTokenRecord(json: record.value),
            let platform = Platform(rawValue: dead.platform)
        else { return [] }
        var tombstones: [KafkaProducerRecord] = []
        for key in holders.keys(ofClient: dead.userId, holding: dead.token, on: platform) {
            tombstones.append(try await placement.record(key, value: []))
        }
        return tombstones
    }
}
