import DeviceRegistry
import KafkaTypes
import PushCore
import PushPipeline

/// The record sink that unsubscribes dead tokens: beside each invalid-token record the pipeline writes, the
/// tombstone of every registry key whose current token is the dead one, in the same batch (acknowledged with it).
///
/// Only keys that still hold the dead token are tombstoned: a device that subscribed again with a new token keeps
/// its subscription. A device re-subscribed between this check and the tombstone's write is lost; the app
/// subscribes again at its next start.
package struct UnsubscribingDeadTokens: RecordSink {
    let inner: any RecordSink
    let store: any DeviceStore
    let invalidTokensTopic: String
    let devicesTopic: String

    package init(
        inner: any RecordSink, store: any DeviceStore, invalidTokensTopic: String, devicesTopic: String
    ) {
        self.inner = inner
        self.store = store
        self.invalidTokensTopic = invalidTokensTopic
        self.devicesTopic = devicesTopic
    }

    package func produce(_ records: [KafkaProducerRecord]) async throws {
        let tombstones = records.flatMap(tombstones)
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

    private func tombstones(for record: KafkaProducerRecord) -> [KafkaProducerRecord] {
        guard record.topic == invalidTokensTopic, let dead = InvalidTokenRecord(json: record.value),
            let platform = Platform(rawValue: dead.platform)
        else { return [] }
        return store.keys(ofClient: dead.userId, holding: dead.token, on: platform).map { key in
            KafkaProducerRecord(topic: devicesTopic, key: Array(key.description.utf8), value: [])
        }
    }
}
