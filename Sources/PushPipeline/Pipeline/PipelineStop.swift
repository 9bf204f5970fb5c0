/// How the pipeline stopped.
public enum PipelineStop: Sendable, Equatable {
    /// After a shutdown request: `unfinished` records were not done within the grace period and
    /// will be delivered again (their offsets were not stored).
    case shutDown(unfinished: Int)
}
