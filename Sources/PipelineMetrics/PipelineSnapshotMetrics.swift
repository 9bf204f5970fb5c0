import Observability
public import PushPipeline

extension PushMetrics {
    /// The gauges of the pipeline's state, read from its `PipelineSnapshot` at every scrape: records and devices in
    /// flight, retry records waiting for their due time, partitions assigned and paused, origins' breakers open.
    public func followPipeline(_ snapshot: @escaping @Sendable () -> PipelineSnapshot) {
        let (records, devices, waiting) = (recordsInFlight, devicesInFlight, recordsWaitingDue)
        let (assigned, paused, openOrigins) = (partitionsAssigned, partitionsPaused, originBreakersOpen)
        registry.addCollector {
            let now = snapshot()
            records.set(now.recordsInFlight)
            devices.set(now.devicesInFlight)
            waiting.set(now.recordsWaitingForDueTime)
            assigned.set(now.partitionsAssigned)
            paused.set(now.partitionsPaused)
            openOrigins.set(now.openOriginBreakers)
        }
    }
}
