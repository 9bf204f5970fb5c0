import Observability
import PipelineMetrics
import PushPipeline
import Synchronization
import Testing

@Suite struct PipelineSnapshotMetricsTests {
    @Test func thePipelinesGaugesAreReadFromItsSnapshotAtEveryScrape() {
        let registry = MetricsRegistry()
        let current = Mutex(PipelineSnapshot(lastPollMicros: 0))
        PushMetrics(registry: registry).followPipeline(stage: .input) { current.withLock { $0 } }
        var text = registry.prometheusText()
        for gauge in [
            "push_records_in_flight", "push_devices_in_flight", "push_records_waiting_due", "kafka_partitions_assigned",
            "kafka_partitions_paused",
        ] {
            #expect(text.contains(#"\#(gauge){stage="input"} 0"#), "\(gauge)")
        }
        current.withLock {
            $0.recordsInFlight = 4
            $0.devicesInFlight = 900
            $0.recordsWaitingForDueTime = 2
            $0.partitionsAssigned = 6
            $0.partitionsPaused = 1
        }
        text = registry.prometheusText()
        #expect(text.contains(#"push_records_in_flight{stage="input"} 4"#))
        #expect(text.contains(#"push_devices_in_flight{stage="input"} 900"#))
        #expect(text.contains(#"push_records_waiting_due{stage="input"} 2"#))
        #expect(text.contains(#"kafka_partitions_assigned{stage="input"} 6"#))
        #expect(text.contains(#"kafka_partitions_paused{stage="input"} 1"#))
    }

    @Test func eachStagesPipelineIsExportedUnderItsOwnStageLabel() {
        let registry = MetricsRegistry()
        let metrics = PushMetrics(registry: registry)
        let input = Mutex(PipelineSnapshot(lastPollMicros: 0))
        let fanout = Mutex(PipelineSnapshot(lastPollMicros: 0))
        metrics.followPipeline(stage: .input) { input.withLock { $0 } }
        metrics.followPipeline(stage: .fanout) { fanout.withLock { $0 } }
        input.withLock {
            $0.recordsInFlight = 3
            $0.partitionsAssigned = 4
        }
        fanout.withLock {
            $0.recordsInFlight = 11
            $0.partitionsAssigned = 2
            $0.partitionsPaused = 1
        }
        let text = registry.prometheusText()
        #expect(text.contains(#"push_records_in_flight{stage="input"} 3"#))
        #expect(text.contains(#"push_records_in_flight{stage="fanout"} 11"#))
        #expect(text.contains(#"kafka_partitions_assigned{stage="input"} 4"#))
        #expect(text.contains(#"kafka_partitions_assigned{stage="fanout"} 2"#))
        #expect(text.contains(#"kafka_partitions_paused{stage="fanout"} 1"#))
    }
}
