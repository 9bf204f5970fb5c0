import Observability
import PushPipeline

extension SendContext {
    /// `push.provider` (when sent), `push.message_id`, `push.room`, `push.token` (the fingerprint) and `trace.parent`
    /// (when the record had one).
    var metadata: [String: LogMetadataValue] {
        var metadata: [String: LogMetadataValue] = [
            "push.message_id": .string(messageId), "push.room": .string(room), "push.token": .token(hash: tokenHash),
        ]
        if let provider { metadata["push.provider"] = .string(provider.rawValue) }
        if let traceParent { metadata["trace.parent"] = .string(traceParent) }
        return metadata
    }
}
