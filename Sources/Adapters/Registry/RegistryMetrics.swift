package import DeviceRegistry
package import Observability
import PushCore

/// The device registry's gauges, read from the tables at each scrape: `push_registry_devices`,
/// `push_registry_clients`, `push_registry_settings`, `push_registry_bytes`, `push_registry_lag{topic}`,
/// `push_registry_loaded`, `push_registry_records_total{topic}` for the records read since the start (a store that
/// resumes reads only the newer ones), and `push_registry_ignored_total{topic,reason}` for records ignored with a
/// warning (reason `too_many_muted_rooms`: the muted rooms of a settings record beyond the bound),
/// `push_registry_follow_failures_total{topic}` for the connections to a topic that failed and were retried; with the
/// LMDB store, `push_registry_store_rebuilds_total{reason}`.
package enum RegistryMetrics {
    package static func register(_ tables: RegistryTables, in registry: MetricsRegistry) {
        let devices = registry.gauge("push_registry_devices", help: "Device subscriptions in the registry table.")
        let clients = registry.gauge("push_registry_clients", help: "Clients with at least one device.")
        let settings = registry.gauge("push_registry_settings", help: "Clients with a settings record.")
        let bytes = registry.gauge("push_registry_bytes", help: "Bytes of text the registry tables hold.")
        let loaded = registry.gauge(
            "push_registry_loaded", help: "1 once both registry topics were read up to where they ended at start.")
        let lag = RegistryTables.Topic.allCases.map { topic in
            (
                topic,
                registry.gauge(
                    "push_registry_lag", help: "Records of the registry topic still to read at start.",
                    labels: ["topic": topic.rawValue])
            )
        }
        let failures = followFailures(in: registry)
        let read = RegistryTables.Topic.allCases.map { topic in
            (
                topic,
                registry.sampledCounter(
                    "push_registry_records_total", help: "Registry records read since the worker started.",
                    labels: ["topic": topic.rawValue])
            )
        }
        registry.addCollector {
            let statistics = tables.store.statistics
            devices.set(statistics.devices)
            clients.set(statistics.clients)
            settings.set(statistics.settings)
            bytes.set(statistics.bytes)
            loaded.set(tables.isLoaded ? 1 : 0)
            for (topic, gauge) in lag { gauge.set(tables.lag(of: topic)) }
            for (topic, counter) in read { counter.advance(to: Double(tables.recordsRead(of: topic))) }
            for (topic, counter) in failures { counter.advance(to: Double(tables.followFailures(of: topic))) }
            advance(ignored: tables.ignored, in: registry)
        }
    }

    /// `push_registry_follow_failures_total{topic}` of each topic, at 0 until advanced.
    static func followFailures(in registry: MetricsRegistry) -> [(RegistryTables.Topic, SampledCounter)] {
        RegistryTables.Topic.allCases.map { topic in
            (
                topic,
                registry.sampledCounter(
                    "push_registry_follow_failures_total",
                    help: "Connections to a registry topic that failed and were retried.",
                    labels: ["topic": topic.rawValue])
            )
        }
    }

    /// Advances `push_registry_ignored_total{topic,reason}` to `ignored`.
    static func advance(ignored: [RegistryTables.IgnoredKey: Int], in registry: MetricsRegistry) {
        for (key, count) in ignored {
            registry.sampledCounter(
                "push_registry_ignored_total", help: "Registry records ignored (key and value disagree, bad token…).",
                labels: ["topic": key.topic.rawValue, "reason": key.reason.rawValue]
            ).advance(to: Double(count))
        }
    }

    /// Counts (every reason at 0 from the start) and logs the damaged file the LMDB store moved aside at opening.
    package static func recordRebuilds(_ recovery: StoreRecovery?, in registry: MetricsRegistry, logger: Logger) {
        for reason in StoreRecovery.reasons {
            let counter = registry.counter(
                "push_registry_store_rebuilds_total",
                help: "Damaged LMDB files moved aside at start, the store rebuilt from the topics.",
                labels: ["reason": reason])
            if reason == recovery?.reason { counter.increment() }
        }
        guard let recovery else { return }
        logger.error(
            "device store damaged, moved aside; rebuilding it from the topics",
            metadata: [
                "registry.file": .string(recovery.file), "registry.moved_to": .string(recovery.movedTo),
                "registry.reason": .string(recovery.reason), "error": .string(recovery.detail),
            ])
    }
}
