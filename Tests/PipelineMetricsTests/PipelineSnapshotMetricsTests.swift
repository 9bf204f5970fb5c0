import Observability
import PipelineMetrics
import PushPipeline
import Synchronization
import Testing

@Suite struct PipelineSnapshotMetricsTests {
    @Test func thePipelinesGaugesAreReadFromItsSnapshotAtEveryScrape() {
        let registry = MetricsRegistry()
        let current = Mutex(PipelineSnapshot(lastPollMicros: 0))
        PushMetrics(registry: registry).followPipeline { current.withLock { $0 } }
        var text = registry.prometheusText()
        for gauge in [
            "push_records_in_flight", "push_devices_in_flight", "push_records_waiting_due", "kafka_partitions_assigned",
            "kafka_partitions_paused",
        ] {
            #expect(text.contains("\(gauge) 0"), "\(gauge)")
        }
        current.withLock {
            $0.recordsInFlight = 4
            $0.devicesInFlight = 900
            $0.recordsWaitingForDueTime = 2
            $0.partitionsAssigned = 6
            $0.partitionsPaused = 1
        }
        text = registry.prometheusText()
        #expect(text.contains("push_records_in_flight 4"))
        #expect(text.contains("push_devices_in_flight 900"))
        #expect(text.contains("push_records_waiting_due 2"))
        #expect(text.contains("kafka_partitions_assigned 6"))
        #expect(text.contains("kafka_partitions_paused 1"))
    }
}
