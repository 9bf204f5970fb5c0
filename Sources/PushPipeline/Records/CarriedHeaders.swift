import KafkaTypes

/// What an input record's headers pass on to its outputs, each read only where it can be believed and
/// bounded there. Pure.
///
/// - The replay run id: the replay's own (`PipelineSettings.replayRunId`), or the `x-replay-run-id` of a retry
///   record (the worker wrote it in a replay run); on any other topic the header is whoever produced the event's
///   text and is not taken. A header that is no valid run id (`ReplayRunID`) is not taken either.
/// - The W3C `traceparent`, from any record, when well-formed (`TraceParent`).
struct CarriedHeaders: Sendable, Equatable {
    var replayRunId: String?
    var traceParent: TraceParent?

    init(replayRunId: String? = nil, traceParent: TraceParent? = nil) {
        self.replayRunId = replayRunId
        self.traceParent = traceParent
    }

    init(of record: borrowing KafkaRecord, settings: borrowing PipelineSettings) {
        if let own = settings.replayRunId {
            replayRunId = own
        } else if settings.isRetryTopic(record.topic), let text = record.headers.text(FailureHeaders.replayRunId),
            ReplayRunID.isValid(text)
        {
            replayRunId = text
        }
        traceParent = record.headers.text(TraceParent.header).flatMap(TraceParent.init)
    }

    /// The headers a retry or dead-letter record of the input carries.
    var headers: [KafkaHeader] {
        var headers: [KafkaHeader] = []
        if let replayRunId { headers.append(KafkaHeader(name: FailureHeaders.replayRunId, text: replayRunId)) }
        if let traceParent { headers.append(KafkaHeader(name: TraceParent.header, text: traceParent.description)) }
        return headers
    }
}
