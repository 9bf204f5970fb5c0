import Observability
public import PushPipeline

extension PushMetrics {
    /// The gauges of `stage`'s pipeline, read from its `PipelineSnapshot` at every scrape: records and devices in
    /// flight, retry records waiting for their due time, partitions assigned and paused, origins' breakers open.
    public func followPipeline(stage: PipelineStage, _ snapshot: @escaping @Sendable () -> PipelineSnapshot) {
        let (records, devices) = (recordsInFlight(stage: stage), devicesInFlight(stage: stage))
        let (waiting, openOrigins) = (recordsWaitingDue(stage: stage), originBreakersOpen(stage: stage))
        let (assigned, paused) = (partitionsAssigned(stage: stage), partitionsPaused(stage: stage))
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
