/// Which of the worker's pipelines a series is about (the label `stage`): every scope has the `input` stage, the
/// consumer of the input topics and retry tiers in the group `KAFKA_GROUP_ID`; `PUSH_REGISTRY_SCOPE=assigned` adds the
/// `fanout` stage, the consumer of the fan-out topic in its own group (docs/partitioned-registry.md).
public enum PipelineStage: String, Sendable, CaseIterable {
    case input
    case fanout
}
