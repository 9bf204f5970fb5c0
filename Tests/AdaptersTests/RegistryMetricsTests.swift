import DeviceRegistry
import Observability
import Testing

@testable import Adapters

@Suite struct RegistryMetricsTests {
    @Test func failedConnectionsAreCountedPerTopicFromZero() {
        let tables = RegistryTables(store: MemoryDeviceStore())
        let metrics = MetricsRegistry()
        RegistryMetrics.register(tables, in: metrics)
        let before = metrics.prometheusText()
        #expect(before.contains(#"push_registry_follow_failures_total{topic="devices"} 0"#))
        #expect(before.contains(#"push_registry_follow_failures_total{topic="clients"} 0"#))
        tables.countFollowFailure(of: .clients)
        tables.countFollowFailure(of: .clients)
        let after = metrics.prometheusText()
        #expect(after.contains(#"push_registry_follow_failures_total{topic="devices"} 0"#))
        #expect(after.contains(#"push_registry_follow_failures_total{topic="clients"} 2"#))
    }
}
