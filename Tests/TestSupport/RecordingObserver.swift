import Essentials
import PushCore
public import PushPipeline
public import Synchronization

/// Keeps every event the pipeline reports, for tests that assert on them.
public final class RecordingObserver: PipelineObserver {
    public let events = Mutex<[PipelineEvent]>([])

    public init() {}

    public func observe(_ event: PipelineEvent) { events.withLock { $0.append(event) } }

    public var all: [PipelineEvent] { events.withLock { $0 } }
}
