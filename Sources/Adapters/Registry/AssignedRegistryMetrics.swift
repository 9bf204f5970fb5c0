import DeviceRegistry
package import Observability

extension AssignedRegistry {
    /// The assigned registry's series, read at each scrape: `push_registry_partitions{state}` (`restoring`,
    /// `restored`), `push_registry_restore_remaining` (records the restoring partitions still have to read), the held
    /// partitions' `push_registry_devices`, `push_registry_clients`, `push_registry_settings` and
    /// `push_registry_bytes`, `push_registry_ignored_total{topic,reason}` (reason `foreign` among them),
    /// `push_registry_follow_failures_total{topic}`, `push_registry_unsubscribe_requests_total{outcome}`
    /// and `push_registry_store_rebuilds_total{reason}` (damaged partition copies moved aside).
    package func register(in metrics: MetricsRegistry) {
        let restoring = metrics.gauge(
            "push_registry_partitions", help: "Registry partitions held, by state.", labels: ["state": "restoring"])
        let restored = metrics.gauge(
            "push_registry_partitions", help: "Registry partitions held, by state.", labels: ["state": "restored"])
        let remaining = metrics.gauge(
            "push_registry_restore_remaining", help: "Records the restoring registry partitions still have to read.")
        let devices = metrics.gauge("push_registry_devices", help: "Device subscriptions in the registry table.")
        let clients = metrics.gauge("push_registry_clients", help: "Clients with at least one device.")
        let settings = metrics.gauge("push_registry_settings", help: "Clients with a settings record.")
        let bytes = metrics.gauge("push_registry_bytes", help: "Bytes of text the registry tables hold.")
        let rebuilds = StoreRecovery.reasons.map { reason in
            (
                reason,
                metrics.sampledCounter(
                    "push_registry_store_rebuilds_total",
                    help: "Damaged LMDB files moved aside at start, the store rebuilt from the topics.",
                    labels: ["reason": reason])
            )
        }
        let failures = RegistryMetrics.followFailures(in: metrics)
        unsubscribes.register(in: metrics)
        metrics.addCollector { [self] in
            for (topic, counter) in failures { counter.advance(to: Double(followFailures(of: topic))) }
            let progress = progress
            restoring.set(progress.restoring.count)
            restored.set(progress.restored.count)
            remaining.set(Int(clamping: progress.remaining))
            let statistics = statistics
            devices.set(statistics.devices)
            clients.set(statistics.clients)
            settings.set(statistics.settings)
            bytes.set(statistics.bytes)
            let moved = self.rebuilds
            for (reason, counter) in rebuilds { counter.advance(to: Double(moved[reason] ?? 0)) }
            RegistryMetrics.advance(ignored: ignored, in: metrics)
        }
    }
}
